// BoardView: the tasks that run in git worktrees of their own (README, "Tasks in worktrees"),
// from WorkspaceService.ListWorktrees, refreshed every two seconds while shown. Each shows its
// title (a click opens the task), status, branch, files changed with added/removed lines and
// cost, and Review (one multi-file diff in the editor), Merge, Discard (asked first) and Open
// folder (a new window).

import { useCallback, useEffect, useState } from "react";
import { WorkspaceService, type WorktreeInfo } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import type { Controller } from "../state/controller";
import { INCLUDED } from "../util/editorModels";
import { formatCost, UNKNOWN_PRICE } from "../util/format";

const refreshMs = 2000;

const statusText: Record<string, string> = {
  running: "running",
  waiting: "waiting for approval",
  completed: "completed",
  failed: "failed",
  cancelled: "cancelled",
  idle: "stopped",
  missing: "folder missing",
};

export function BoardView({ ctrl, onDone }: { ctrl: Controller; onDone(): void }) {
  const [items, setItems] = useState<WorktreeInfo[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [confirm, setConfirm] = useState<string>();
  const [busy, setBusy] = useState<string>();
  const [reload, setReload] = useState(0);

  const load = useCallback(
    async (signal?: AbortSignal) => {
      try {
        const r = await ctrl.client.unary(WorkspaceService.method.listWorktrees, { repo: "" }, { signal });
        setItems(r.worktrees);
        setError(undefined);
      } catch (e) {
        if (!signal?.aborted) setError(e instanceof Error ? e.message : String(e));
      } finally {
        setLoaded(true);
      }
    },
    [ctrl.client],
  );

  useEffect(() => {
    const ac = new AbortController();
    void load(ac.signal);
    const t = setInterval(() => void load(ac.signal), refreshMs);
    return () => {
      clearInterval(t);
      ac.abort();
    };
  }, [load, reload]);

  /** act runs one action on a task's worktree and shows its outcome. */
  const act = async (id: string, what: () => Promise<string | undefined>) => {
    setBusy(id);
    try {
      setNotice(await what());
    } catch (e) {
      setNotice(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(undefined);
      setReload((n) => n + 1);
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
  const open = async (w: WorktreeInfo) => {
    await ctrl.resumeTask(w.taskId);
    onDone();
  };

  return (
    <section className="view board-view" aria-label="Board">
      <header className="view-header">
        <h2>Board</h2>
        <button className="button primary" onClick={onDone}>
          Done
        </button>
      </header>
      {notice && (
        <div className="notice" role="status">
          {notice}
        </div>
      )}
      {error && <p className="error-text mcp-pad">Cannot list the worktrees: {error}</p>}
      <ul className="board-list" aria-label="Worktree tasks">
        {loaded && items.length === 0 && !error && (
          <li className="empty">No tasks in worktrees. Turn on “Worktree” beside Plan/Act to start one.</li>
        )}
        {items.map((w) => (
          <li key={w.taskId} className="board-item" aria-label={w.title}>
            <button className="board-title" title={`Open the task (${w.path})`} onClick={() => void open(w)}>
              {w.title || w.taskId}
            </button>
            <div className="board-meta">
              <span className={`board-status ${w.status}`}>{statusText[w.status] ?? w.status}</span>
              {w.merged && <span className="board-status completed">merged</span>}
              <span className="board-branch" title={w.branch}>
                <span className="codicon codicon-git-branch" aria-hidden /> {w.branch}
              </span>
              <span>
                {w.filesChanged} file{w.filesChanged === 1 ? "" : "s"} <span className="board-added">+{w.linesAdded}</span>{" "}
                <span className="board-removed">−{w.linesRemoved}</span>
              </span>
              <span>{w.included ? INCLUDED : w.costKnown ? formatCost(w.cost) : UNKNOWN_PRICE}</span>
            </div>
            {confirm === w.taskId ? (
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
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
