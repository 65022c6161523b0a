// SubtaskTree: the tree of an orchestrated task's subtasks inside the chat (docs/modes.md,
// "The orchestrator"). Every delegate call leaves a subagents row whose one child names its
// mode (the task's store keeps where they are); the tree lists them under the task with each
// one's mode, status, requests and cost, and the user opens any of them to read its chat
// (SubtaskTranscript). The tree re-renders when a subtask is added; each entry follows its own
// row, so a running subtask's progress re-renders that entry only.

import { useId, useState, useSyncExternalStore } from "react";
import type { TaskStore } from "../state/taskStore";
import { useRow, useTaskState } from "../state/taskStore";
import { formatCost } from "../util/format";
import { delegated, type Subagent } from "../util/subagents";
import { statusIcon } from "./SubagentsRow";

export function SubtaskTree({ store }: { store: TaskStore }) {
  useSyncExternalStore(store.subscribeSubtasks, () => store.subtaskRows.length);
  const rows = store.subtaskRows;
  const state = useTaskState(store);
  const [open, setOpen] = useState<number | undefined>(undefined);
  if (rows.length === 0) return null;
  return (
    <nav className="subtask-tree" aria-label="Subtasks">
      <div className="subtask-tree-head">
        <span className="codicon codicon-type-hierarchy-sub" aria-hidden />
        <span>
          {state?.title || "Task"} · {rows.length} {rows.length === 1 ? "subtask" : "subtasks"}
        </span>
      </div>
      <ul role="tree" aria-label="Subtask tree">
        {rows.map((pos, i) => (
          <SubtaskItem key={pos} store={store} pos={pos} n={i + 1} open={open === pos} toggle={() => setOpen(open === pos ? undefined : pos)} />
        ))}
      </ul>
    </nav>
  );
}

/** SubtaskItem is one subtask of the tree; it follows its row as the daemon replaces it. */
function SubtaskItem({ store, pos, n, open, toggle }: { store: TaskStore; pos: number; n: number; open: boolean; toggle: () => void }) {
  const { message } = useRow(store, pos);
  const s: Subagent | undefined = delegated(message);
  if (!s) return null;
  return (
    <li role="treeitem" aria-selected={open} aria-label={`Subtask ${n} in ${s.mode}: ${s.status}`} className={`subtask ${s.status}`}>
      <button className="subtask-open" onClick={toggle} aria-expanded={open}>
        <span className={`codicon codicon-${statusIcon[s.status] ?? "circle-large-outline"}`} aria-hidden />
        <span className="subtask-mode">{s.mode}</span>
        <span className="subtask-status">{s.status}</span>
        <span className="subtask-meta">
          {s.requests} {s.requests === 1 ? "request" : "requests"}
          {s.cost > 0 ? ` · ${formatCost(s.cost)}` : ""}
        </span>
        <span className="subtask-prompt" title={s.prompt}>
          {s.prompt}
        </span>
      </button>
      {open && <TranscriptList sub={s} />}
    </li>
  );
}

/** SubtaskTranscript is the Open button of one subtask's row and, opened, its chat. */
export function SubtaskTranscript({ sub }: { sub: Subagent }) {
  const [open, setOpen] = useState(false);
  if (sub.transcript.length === 0) return null;
  return (
    <div className="subtask-transcript-toggle">
      <button className="link" onClick={() => setOpen(!open)} aria-expanded={open}>
        {open ? "Close subtask" : "Open subtask"}
      </button>
      {open && <TranscriptList sub={sub} />}
    </div>
  );
}

const kindLabel: Record<string, string> = {
  task: "Assignment",
  text: "Said",
  tool: "Tool",
  command: "Command",
  command_output: "Output",
  error: "Error",
  info: "Note",
  completion_result: "Result",
  diff_error: "Edit failed",
};

function TranscriptList({ sub }: { sub: Subagent }) {
  const id = useId();
  if (sub.transcript.length === 0) return <div className="subtask-transcript empty">{sub.status === "running" ? "Running…" : "No messages."}</div>;
  return (
    <ol className="subtask-transcript" aria-labelledby={id}>
      <span id={id} hidden>
        {`Subtask in ${sub.mode}`}
      </span>
      {sub.transcript.map((r, i) => (
        <li key={i} className={`transcript-row ${r.kind}`}>
          <span className="transcript-kind">{kindLabel[r.kind] ?? r.kind}</span>
          <span className="transcript-text">{r.text}</span>
        </li>
      ))}
    </ol>
  );
}
