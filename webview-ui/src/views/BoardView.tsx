// BoardView: every task of the window's workspace (README, "The Board"), or of the daemon with
// the filter: live tasks and those in git worktrees, from TaskService.WatchTasks, which sends
// the board again after each change (no timer here). Each shows its title (a click opens the
// task), status, its open question with Approve / Reject, branch, files changed with
// added/removed lines and cost, and for a worktree Review (one multi-file diff in the editor),
// Merge, Discard (asked first) and Open folder (a new window). Subtasks sit under their parent:
// tasks started with one, and the subtasks an orchestrator delegates (BoardTask.subtask), which
// show their mode, open the parent's chat at their row, and whose question is the parent's.

import { useState } from "react";
import { WorkspaceService, type WorktreeInfo } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import { AskResponse, TaskStatus, type BoardTask } from "@cairn/proto/gen/cairn/v1/task_pb";
import { ToolOperation } from "@cairn/proto/gen/cairn/v1/message_pb";
import type { Controller } from "../state/controller";
import { useBoard } from "../state/boardStore";
import { phaseOf, phaseText } from "../state/openTasks";
import { INCLUDED } from "../util/editorModels";
import { formatCost, UNKNOWN_PRICE } from "../util/format";

export function BoardView({ ctrl, onDone }: { ctrl: Controller; onDone(): void }) {
  const { tasks, all, loaded, error } = useBoard(ctrl.board);
  const [notice, setNotice] = useState<string>();
  const [confirm, setConfirm] = useState<string>();
  const [busy, setBusy] = useState<string>();

  /** act runs one action on a task's worktree and shows its outcome. */
  const act = async (id: string, what: () => Promise<string | undefined>) => {
    setBusy(id);
    try {
      setNotice(await what());
    } catch (e) {
      setNotice(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(undefined);
    }
  };
  const c = ctrl.client;
  const review = (w: WorktreeInfo) =>
    act(w.taskId, async () => {
      const r = await c.unary(WorkspaceService.method.getWorktreeChanges, { taskId: w.taskId, showInEditor: true, hostId: ctrl.app.get().hostId });
      return r.files.length === 0 ? `${w.title}: no changes yet` : undefined;
    });
  const merge = (w: WorktreeInfo) =>
    act(w.taskId, async () => {
      const r = await c.unary(WorkspaceService.method.mergeWorktree, { taskId: w.taskId });
      if (r.files.length === 0) return `${w.title}: nothing to merge`;
      const how = r.commit ? `in merge commit ${r.commit.slice(0, 8)}` : "as uncommitted changes";
      return `Merged ${r.files.length} file${r.files.length === 1 ? "" : "s"} ${how}: ${r.files.join(", ")}`;
    });
  const discard = (w: WorktreeInfo) =>
    act(w.taskId, async () => {
      setConfirm(undefined);
      await c.unary(WorkspaceService.method.discardWorktree, { taskId: w.taskId });
      return `Discarded ${w.branch}`;
    });
  const open = async (b: BoardTask) => {
    await (b.subtask ? ctrl.showRow(b.parentId, b.row) : ctrl.resumeTask(b.taskId));
    onDone();
  };
  /** answer answers an entry's question on the task that asks it: a subtask's is its parent's. */
  const answer = (b: BoardTask, r: AskResponse) => void ctrl.answerTask(b.subtask ? b.parentId : b.taskId, b.ask!.index, r);
  const ids = new Set(tasks.map((t) => t.taskId));
  const top = tasks.filter((t) => !ids.has(t.parentId));
  const ordered: [BoardTask, number][] = [];
  const walk = (t: BoardTask, depth: number) => {
    ordered.push([t, depth]);
    for (const c of tasks.filter((x) => x.parentId === t.taskId)) walk(c, depth + 1);
  };
  top.forEach((t) => walk(t, 0));

  return (
    <section className="view board-view" aria-label="Board">
      <header className="view-header">
        <h2>Board</h2>
        <label className="board-filter">
          <input type="checkbox" checked={all} onChange={(e) => ctrl.board.setAll(e.target.checked)} /> All workspaces
        </label>
        <button className="button primary" onClick={onDone}>
          Done
        </button>
      </header>
      {notice && (
        <div className="notice" role="status">
          {notice}
        </div>
      )}
      {error && <p className="error-text mcp-pad">Cannot list the tasks: {error}</p>}
      <ul className="board-list" aria-label="Tasks">
        {loaded && tasks.length === 0 && !error && (
          <li className="empty">No tasks here yet. Start one in the chat; tasks started while another runs get a worktree of their own.</li>
        )}
        {ordered.map(([b, depth]) => (
          <li key={b.taskId} className="board-item" aria-label={b.title || b.taskId} style={depth ? { marginLeft: `${depth}em` } : undefined}>
            <button className="board-title" title={b.subtask ? "Open its row in the parent's chat" : `Open the task (${b.workspaceRoot})`} onClick={() => void open(b)}>
              {b.title || b.taskId}
            </button>
            <div className="board-meta">
              {b.subtask && <span className="board-mode">{b.modeSlug}</span>}
              <span className={`board-status ${statusClass(b)}`}>{statusWord(b)}</span>
              {b.worktree?.merged && <span className="board-status completed">merged</span>}
              {b.worktree && (
                <span className="board-branch" title={b.worktree.branch}>
                  <span className="codicon codicon-git-branch" aria-hidden /> {b.worktree.branch}
                </span>
              )}
              {b.worktree && (
                <span>
                  {b.worktree.filesChanged} file{b.worktree.filesChanged === 1 ? "" : "s"} <span className="board-added">+{b.worktree.linesAdded}</span>{" "}
                  <span className="board-removed">−{b.worktree.linesRemoved}</span>
                </span>
              )}
              {/* A subtask's row carries no price: a cost of zero may be an unknown one, so only a real one shows. */}
              {(!b.subtask || b.cost > 0) && <span>{b.included ? INCLUDED : b.costKnown ? formatCost(b.cost) : UNKNOWN_PRICE}</span>}
            </div>
            {b.ask && phaseOf(undefinedState(b), b.ask) === "waiting" && (
              <div className="board-ask" role="group" aria-label={`Question of ${b.title}`}>
                <span className="board-ask-text">{askText(b)}</span>
                <button className="button primary" onClick={() => answer(b, AskResponse.APPROVE)}>
                  Approve
                </button>
                <button className="button secondary" onClick={() => answer(b, AskResponse.REJECT)}>
                  Reject
                </button>
              </div>
            )}
            {b.worktree && <WorktreeActions w={b.worktree} />}
          </li>
        ))}
      </ul>
    </section>
  );

  function WorktreeActions({ w }: { w: WorktreeInfo }) {
    return confirm === w.taskId ? (
              <div className="board-confirm" role="group" aria-label="Confirm discard">
                <span>Discard the worktree and branch? Its changes are lost.</span>
                <button className="button primary" onClick={() => void discard(w)}>
                  Discard
                </button>
                <button className="button secondary" onClick={() => setConfirm(undefined)}>
                  Keep
                </button>
              </div>
            ) : (
              <div className="board-actions">
                <button className="button secondary" disabled={busy === w.taskId || w.status === "missing"} onClick={() => void review(w)}>
                  Review
                </button>
                <button className="button secondary" disabled={busy === w.taskId || w.status === "missing"} onClick={() => void merge(w)}>
                  Merge
                </button>
                <button className="button secondary" disabled={busy === w.taskId || w.status === "running"} onClick={() => setConfirm(w.taskId)}>
                  Discard
                </button>
                <button className="button secondary" disabled={w.status === "missing"} onClick={() => c.openFolder(w.path)}>
                  Open folder
                </button>
              </div>
            );
  }
}

/** undefinedState is the part of a task's state the phase needs, from its board entry. */
function undefinedState(b: BoardTask) {
  return { status: b.status } as Parameters<typeof phaseOf>[0];
}

function statusClass(b: BoardTask): string {
  if (b.worktree?.status === "missing") return "missing";
  return phaseOf(undefinedState(b), b.ask);
}

function statusWord(b: BoardTask): string {
  if (b.worktree?.status === "missing") return "folder missing";
  if (!b.live && b.status === TaskStatus.IDLE) return "stopped";
  return phaseText[phaseOf(undefinedState(b), b.ask)];
}

/** askText is what the question asks, in a line: the tool or command, or the question itself. */
function askText(b: BoardTask): string {
  const a = b.ask!;
  switch (a.payload.case) {
    case "tool":
      if (a.payload.value.operation === ToolOperation.DELEGATE) return `Start this subtask in ${a.payload.value.path}`;
      return `${a.payload.value.path ? `Edit ${a.payload.value.path}` : "Use a tool"}`;
    case "command":
      return `Run ${a.payload.value.command}`;
    case "followup":
      return a.payload.value.question;
  }
  return a.text.split("\n")[0] || "Waiting for an answer";
}
