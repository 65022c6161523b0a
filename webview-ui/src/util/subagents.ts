// What a subagents row says (core/msg.Subagents, JSON in the row's text): the children of a
// use_subagents call, or the one subtask of a delegate call (docs/modes.md, "The orchestrator"),
// which names its mode. The chat's rows, the subtask tree and the strip read it here.

import { SayKind, type Message } from "@cairn/proto/gen/cairn/v1/message_pb";

export interface Subagent {
  prompt: string;
  status: "running" | "done" | "failed" | string;
  requests: number;
  cost: number;
  lastTool?: string;
  error?: string;
  /** A delegated subtask's mode ("" for a use_subagents child). */
  mode: string;
  /** A delegated subtask's chat, once it ended. */
  transcript: TranscriptRow[];
}

/** TranscriptRow is one row of a subtask's chat (core/msg.SubagentRow). */
export interface TranscriptRow {
  type: string;
  kind: string;
  text: string;
}

/** parseSubagents reads a subagents row's text; a row that does not parse has no children. */
export function parseSubagents(text: string): Subagent[] {
  try {
    const v = JSON.parse(text) as { children?: unknown };
    if (!Array.isArray(v.children)) return [];
    return v.children.map((c: Partial<Subagent>) => ({
      prompt: String(c.prompt ?? ""),
      status: String(c.status ?? "running"),
      requests: Number(c.requests ?? 0),
      cost: Number(c.cost ?? 0),
      lastTool: c.lastTool ? String(c.lastTool) : undefined,
      error: c.error ? String(c.error) : undefined,
      mode: c.mode ? String(c.mode) : "",
      transcript: Array.isArray(c.transcript)
        ? c.transcript.map((r: Partial<TranscriptRow>) => ({ type: String(r.type ?? ""), kind: String(r.kind ?? ""), text: String(r.text ?? "") }))
        : [],
    }));
  } catch {
    return [];
  }
}

/** delegated is the subtask of a delegate call's row (a subagents row whose child names a mode;
 * the mode is there from the row's first version on), or undefined for any other row. */
export function delegated(m: Message | undefined): Subagent | undefined {
  if (m?.kind.case !== "say" || m.kind.value !== SayKind.SUBAGENTS) return undefined;
  const c = parseSubagents(m.text);
  return c.length === 1 && c[0].mode ? c[0] : undefined;
}
