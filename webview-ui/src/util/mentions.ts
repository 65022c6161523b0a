// Detects the @ or / token being typed at the caret, and inserts a chosen entry.

export interface ActiveToken {
  kind: "mention" | "slash";
  /** Offset of the "@" or "/" in the text. */
  start: number;
  /** Text typed after the trigger character, up to the caret. */
  query: string;
}

export function activeToken(text: string, caret: number): ActiveToken | undefined {
  const before = text.slice(0, caret);
  // "/" menu: only for the first word of the message.
  const slash = /^\s*\/(\S*)$/.exec(before);
  if (slash) return { kind: "slash", start: before.lastIndexOf("/"), query: slash[1]! };
  // "@" menu: "@" at the start or after whitespace; the token may contain escaped spaces.
  const m = /(^|\s)@((?:\\ |[^\s@])*)$/.exec(before);
  if (m) return { kind: "mention", start: m.index + m[1]!.length, query: m[2]!.replace(/\\ /g, " ") };
  return undefined;
}

/** mentionText renders a workspace path as a mention token: "@/a\ b.ts", folders end in "/". */
export function mentionText(path: string, isDir: boolean): string {
  const p = path.replace(/^\/+/, "").replace(/ /g, "\\ ");
  return `@/${p}${isDir && !p.endsWith("/") ? "/" : ""}`;
}

/** replaceToken replaces the active token with insert + a space; returns the new text and caret. */
export function replaceToken(text: string, caret: number, tok: ActiveToken, insert: string): { text: string; caret: number } {
  const after = text.slice(caret).replace(/^\S*/, "");
  const head = text.slice(0, tok.start) + insert + " ";
  return { text: head + after.replace(/^ /, ""), caret: head.length };
}
