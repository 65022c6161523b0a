// The chat's keyboard: Ctrl/Cmd+Enter presses the open question's primary button, Escape its
// secondary one (reject) or stops a running task. Escape never acts while the input holds an
// unsent message: that keystroke must not throw the user's text away or send it as a reply.

export type KeyAction = "primary" | "secondary" | "cancel";

export interface KeyContext {
  hasPrimary: boolean;
  hasSecondary: boolean;
  running: boolean;
  /** The input holds text or images not sent yet, or the key went to another text field that
   * holds text (an edited message, the to-do list). */
  draft: boolean;
}

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  defaultPrevented: boolean;
  isComposing?: boolean;
}

export function keyAction(e: KeyLike, c: KeyContext): KeyAction | undefined {
  if (e.defaultPrevented || e.isComposing) return undefined;
  if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !e.shiftKey && !e.altKey) {
    return c.hasPrimary ? "primary" : undefined;
  }
  if (e.key === "Escape" && !e.ctrlKey && !e.metaKey && !e.shiftKey && !e.altKey) {
    if (c.draft) return undefined;
    if (c.hasSecondary) return "secondary";
    if (c.running) return "cancel";
  }
  return undefined;
}
