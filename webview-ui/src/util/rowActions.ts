// What a chat row offers besides its content: the text its copy button copies, whether it is a
// user message that can be edited and sent again, and the span of work a completion covers.

import { AskKind, SayKind, type Message } from "@cairn/proto/gen/cairn/v1/message_pb";

const copySay = new Set<SayKind>([
  SayKind.TASK,
  SayKind.USER_FEEDBACK,
  SayKind.TEXT,
  SayKind.REASONING,
  SayKind.ERROR,
  SayKind.DIFF_ERROR,
  SayKind.IGNORE_ERROR,
  SayKind.COMPLETION_RESULT,
  SayKind.COMMAND_OUTPUT,
  SayKind.INFO,
]);

const copyAsk = new Set<AskKind>([
  AskKind.FOLLOWUP,
  AskKind.PLAN_MODE_RESPOND,
  AskKind.COMPLETION_RESULT,
  AskKind.API_REQ_FAILED,
  AskKind.MISTAKE_LIMIT_REACHED,
  AskKind.REPORT_BUG,
  AskKind.NEW_TASK,
  AskKind.CONDENSE,
]);

/** copyText is what copying a row gives: its text as written ("" when the row has none or is
 * a kind with its own copy control, such as a command). */
export function copyText(m: Message): string {
  if (m.partial) return "";
  if (m.kind.case === "say" && copySay.has(m.kind.value)) {
    if (m.payload.case === "completion") return m.payload.value.result || m.text;
    return m.text;
  }
  if (m.kind.case === "ask" && copyAsk.has(m.kind.value)) {
    if (m.payload.case === "followup") return m.payload.value.question || m.text;
    if (m.payload.case === "newTask") return m.payload.value.context || m.text;
    return m.text;
  }
  return "";
}

/** isUserMessage: the task's first message or later user text, which can be edited and resent. */
export function isUserMessage(m: Message): boolean {
  return m.kind.case === "say" && (m.kind.value === SayKind.TASK || m.kind.value === SayKind.USER_FEEDBACK) && !m.partial;
}

function isSay(m: Message | undefined, kind: SayKind): m is Message {
  return m?.kind.case === "say" && m.kind.value === kind;
}

/** ChangesSpan is what "See new changes" compares: from a checkpoint row to a later
 * checkpoint (toHash) or, for the latest completion, the working tree (toHash ""). */
export interface ChangesSpan {
  fromIndex: number;
  toHash: string;
}

/** changesSpan is the work the completion row at pos covers: from the state at the previous
 * completion (the last checkpoint before it) or the task's first checkpoint, up to this
 * completion. Checkpoints are taken after every change, so the last one before a completion
 * is the workspace as it was then. undefined when the task has no checkpoint to start from. */
export function changesSpan(messages: readonly (Message | undefined)[], pos: number): ChangesSpan | undefined {
  const lastCheckpointBefore = (end: number): number => {
    for (let i = end - 1; i >= 0; i--) if (isSay(messages[i], SayKind.CHECKPOINT_CREATED)) return i;
    return -1;
  };
  let prev = -1;
  for (let i = pos - 1; i >= 0; i--) {
    if (isSay(messages[i], SayKind.COMPLETION_RESULT)) {
      prev = i;
      break;
    }
  }
  let from = prev >= 0 ? lastCheckpointBefore(prev) : -1;
  if (from < 0) from = messages.findIndex((m) => isSay(m, SayKind.CHECKPOINT_CREATED));
  if (from < 0 || from > pos) return undefined;
  let later = false;
  for (let i = pos + 1; i < messages.length; i++) if (isSay(messages[i], SayKind.COMPLETION_RESULT)) later = true;
  let toHash = "";
  if (later) {
    const to = lastCheckpointBefore(pos);
    const m = to >= 0 ? messages[to] : undefined;
    toHash = m?.payload.case === "checkpoint" ? m.payload.value.hash : "";
    if (to === from) return undefined; // nothing changed in between
  }
  const f = messages[from];
  return f ? { fromIndex: f.index, toHash } : undefined;
}

/** mcpToolCall: a row of an MCP tool call (asked or auto-approved); resource reads change nothing. */
function mcpToolCall(m: Message | undefined): boolean {
  if (!m || m.payload.case !== "mcp" || !m.payload.value.toolName) return false;
  return (
    (m.kind.case === "ask" && m.kind.value === AskKind.USE_MCP_SERVER) ||
    (m.kind.case === "say" && m.kind.value === SayKind.MCP_SERVER_REQUEST_STARTED)
  );
}

/**
 * completionChanged reports whether the work the completion at pos changed the workspace, so
 * that "See new changes" is offered only then. The daemon says so on the row (the completion
 * payload's `changes`: it checkpoints just before the completion and compares with the previous
 * completion's checkpoint, whatever kind of step ran). Rows from older daemons lack it; for
 * them the checkpoint rows decide: the span changed when a checkpoint in it has another hash
 * than the one it starts from, and an MCP tool call (no checkpoint followed it then) counts as
 * a possible change. With no checkpoint at all the offer stays: its click says why there is
 * nothing to compare.
 */
export function completionChanged(messages: readonly (Message | undefined)[], pos: number): boolean {
  const row = messages[pos];
  if (row?.payload.case === "completion" && row.payload.value.changes !== undefined) return row.payload.value.changes;
  const span = changesSpan(messages, pos);
  if (!span) return true;
  let from = -1;
  for (let i = 0; i < pos; i++) if (messages[i]?.index === span.fromIndex) from = i;
  const f = messages[from];
  const fromHash = f?.payload.case === "checkpoint" ? f.payload.value.hash : "";
  for (let i = from + 1; i < pos; i++) {
    const m = messages[i];
    if (isSay(m, SayKind.CHECKPOINT_CREATED) && m.payload.case === "checkpoint" && m.payload.value.hash !== fromHash) return true;
    if (mcpToolCall(m)) return true;
  }
  return false;
}
