// A browser session in the chat is the run of rows from a browser_action launch to its close:
// the launch (ask or auto-approved say), each action, each result with its screenshot, and the
// model's text and request rows in between. The first row renders the whole session; the others
// render nothing. A row of any other kind (an error, a question, a user message) ends the run.

import { AskKind, SayKind, type BrowserPayload, type Message } from "@cairn/proto/gen/cairn/v1/message_pb";

export function isLaunch(m: Message): boolean {
  return (
    (m.kind.case === "ask" && m.kind.value === AskKind.BROWSER_ACTION_LAUNCH) ||
    (m.kind.case === "say" && m.kind.value === SayKind.BROWSER_ACTION_LAUNCH)
  );
}

/** inside is true for the kinds a session can hold after its launch. */
function inside(m: Message): boolean {
  if (m.kind.case !== "say") return false;
  switch (m.kind.value) {
    case SayKind.BROWSER_ACTION:
    case SayKind.BROWSER_ACTION_RESULT:
    case SayKind.TEXT:
    case SayKind.REASONING:
    case SayKind.API_REQ_STARTED:
      return true;
  }
  return false;
}

export function isClose(m: Message): boolean {
  return m.kind.case === "say" && m.kind.value === SayKind.BROWSER_ACTION && browserOf(m)?.action === "close";
}

export function browserOf(m: Message): BrowserPayload | undefined {
  return m.payload.case === "browser" ? m.payload.value : undefined;
}

/** sessionEnd returns the position after the last row of the session that starts at start. */
export function sessionEnd(messages: readonly Message[], start: number): number {
  let i = start + 1;
  for (; i < messages.length; i++) {
    const m = messages[i];
    if (!m || !inside(m)) break;
    if (isClose(m)) return i + 1;
  }
  return i;
}

/** sessionStart returns the position of the launch whose session holds pos (a later row), or -1. */
export function sessionStart(messages: readonly Message[], pos: number): number {
  const self = messages[pos];
  if (!self || !inside(self)) return -1;
  for (let i = pos - 1; i >= 0; i--) {
    const m = messages[i];
    if (!m) return -1;
    if (isLaunch(m)) return i;
    if (!inside(m) || isClose(m)) return -1;
  }
  return -1;
}

/** Step is one action of a session with what it left. */
export interface Step {
  action: string;
  detail: string;
  /** notes are the model's words before the action. */
  notes: string[];
  screenshot?: Uint8Array;
  logs: string;
  url: string;
  mouse: string;
}

/** steps reads a session's rows into its actions, each with its result. */
export function steps(rows: readonly Message[]): Step[] {
  const out: Step[] = [];
  let notes: string[] = [];
  for (const m of rows) {
    const b = browserOf(m);
    if (isLaunch(m)) {
      out.push({ action: "launch", detail: b?.url || m.text, notes, logs: "", url: b?.url || m.text, mouse: "" });
      notes = [];
    } else if (m.kind.case === "say" && m.kind.value === SayKind.BROWSER_ACTION) {
      out.push({ action: b?.action ?? "", detail: b?.coordinate || b?.text || "", notes, logs: "", url: "", mouse: "" });
      notes = [];
    } else if (m.kind.case === "say" && m.kind.value === SayKind.BROWSER_ACTION_RESULT) {
      const last = out[out.length - 1];
      if (!last || !b) continue;
      last.screenshot = b.screenshotPng.length > 0 ? b.screenshotPng : undefined;
      last.logs = b.logs;
      last.url = b.currentUrl || last.url;
      last.mouse = b.mousePosition;
    } else if (m.kind.case === "say" && m.kind.value === SayKind.TEXT && m.text.trim()) {
      notes.push(m.text.trim());
    }
  }
  return out;
}

/** pngSize reads the width and height from a PNG's header (undefined when it is not one). */
export function pngSize(png: Uint8Array): { width: number; height: number } | undefined {
  if (png.length < 24 || png[0] !== 0x89 || png[1] !== 0x50) return undefined;
  const v = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: v.getUint32(16), height: v.getUint32(20) };
}

/** parseMouse reads "x,y". */
export function parseMouse(s: string): { x: number; y: number } | undefined {
  const m = /^\s*(\d+)\s*,\s*(\d+)\s*$/.exec(s);
  return m ? { x: Number(m[1]), y: Number(m[2]) } : undefined;
}
