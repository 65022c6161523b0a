// HistoryView: search, sort and favourite filter over TaskService.ListTasks; resume, favourite,
// export (copied as markdown) and delete.

import { useEffect, useState } from "react";
import { TaskService, TaskSort, type TaskSummary } from "@cairn/proto/gen/cairn/v1/task_pb";
import type { Controller } from "../state/controller";
import { formatBytes, formatDate, formatTokens } from "../util/format";
import { taskCost } from "../util/editorModels";

export function HistoryView({ ctrl, onDone }: { ctrl: Controller; onDone(): void }) {
  const [search, setSearch] = useState("");
  const [sort, setSort] = useState<TaskSort>(TaskSort.NEWEST);
  const [favoritesOnly, setFavoritesOnly] = useState(false);
  const [tasks, setTasks] = useState<TaskSummary[]>([]);
  const [total, setTotal] = useState(0n);
  const [loaded, setLoaded] = useState(false);
  const [reload, setReload] = useState(0);

  useEffect(() => {
    const ac = new AbortController();
    const t = setTimeout(
      () => {
        ctrl.client
          .unary(TaskService.method.listTasks, { search, sort, favoritesOnly }, { signal: ac.signal })
          .then((r) => {
            setTasks(r.tasks);
            setTotal(r.totalSizeBytes);
            setLoaded(true);
          })
          .catch(() => setLoaded(true));
      },
      search ? 150 : 0,
    );
    return () => {
      clearTimeout(t);
      ac.abort();
    };
  }, [ctrl.client, search, sort, favoritesOnly, reload]);

  const setFavorite = async (t: TaskSummary) => {
    setTasks((ts) => ts.map((x) => (x.taskId === t.taskId ? { ...x, favorite: !t.favorite } : x)));
    await ctrl.client.unary(TaskService.method.setFavorite, { taskId: t.taskId, favorite: !t.favorite }).catch(() => {});
    if (favoritesOnly) setReload((n) => n + 1);
  };
  const remove = async (ids: string[], all = false) => {
    await ctrl.client.unary(TaskService.method.deleteTasks, { taskIds: ids, all }).catch(() => {});
    setReload((n) => n + 1);
  };
  // The markdown goes to the editor's save dialog (the extension writes the file).
  const exportTask = (t: TaskSummary) => ctrl.exportTask(t.taskId);

  return (
    <section className="view history-view" aria-label="History">
      <header className="view-header">
        <h2>History</h2>
        <button className="button primary" onClick={onDone}>
          Done
        </button>
      </header>
      <div className="history-controls">
        <input type="search" aria-label="Search history" placeholder="Search tasks…" value={search} onChange={(e) => setSearch(e.target.value)} />
        <div className="history-filters">
          <select aria-label="Sort" value={sort} onChange={(e) => setSort(Number(e.target.value) as TaskSort)}>
            <option value={TaskSort.NEWEST}>Newest</option>
            <option value={TaskSort.OLDEST}>Oldest</option>
            <option value={TaskSort.MOST_EXPENSIVE}>Most expensive</option>
            <option value={TaskSort.MOST_TOKENS}>Most tokens</option>
          </select>
          <label className="check">
            <input type="checkbox" checked={favoritesOnly} onChange={(e) => setFavoritesOnly(e.target.checked)} />
            Favorites only
          </label>
        </div>
      </div>
      <ul className="history-list" aria-label="Tasks">
        {loaded && tasks.length === 0 && <li className="empty">{search || favoritesOnly ? "No matching tasks" : "No tasks yet"}</li>}
        {tasks.map((t) => (
          <li key={t.taskId} className="history-item">
            {/* The whole card opens the task; its button (for the keyboard and screen readers) is
                the title, so the button's name holds what it shows (axe: label-content-name-mismatch). */}
            <div className="history-main" onClick={() => void ctrl.resumeTask(t.taskId)}>
              <span className="muted small">{formatDate(t.updatedUnixMs)}</span>
              <button
                className="history-title history-open"
                aria-label={`Open task: ${t.title}`}
                onClick={(e) => {
                  e.stopPropagation();
                  void ctrl.resumeTask(t.taskId);
                }}
              >
                {t.title}
              </button>
              <span className="muted small">
                ↑{formatTokens(t.tokensIn)} ↓{formatTokens(t.tokensOut)}
                {t.cacheReads > 0n ? ` · cache ${formatTokens(t.cacheReads)}` : ""} · {taskCost(t)} · {formatBytes(t.sizeBytes)}
                {t.model && (
                  <>
                    {" · "}
                    <span className="history-model">{t.model}</span>
                  </>
                )}
              </span>
            </div>
            <div className="history-actions">
              <button
                className="icon-button"
                aria-label={t.favorite ? "Unfavorite" : "Favorite"}
                aria-pressed={t.favorite}
                onClick={() => void setFavorite(t)}
              >
                <span className={`codicon codicon-star-${t.favorite ? "full" : "empty"}`} aria-hidden />
              </button>
              <button className="icon-button" aria-label="Export" title="Export as markdown" onClick={() => void exportTask(t)}>
                <span className="codicon codicon-export" aria-hidden />
              </button>
              <button className="icon-button" aria-label="Delete" onClick={() => void remove([t.taskId])}>
                <span className="codicon codicon-trash" aria-hidden />
              </button>
            </div>
          </li>
        ))}
      </ul>
      <footer className="view-footer">
        <span className="muted small">Total size {formatBytes(total)}</span>
        {tasks.length > 0 && (
          <button
            className="button secondary"
            onClick={() => {
              if (confirmDelete()) void remove([], true);
            }}
          >
            Delete all history
          </button>
        )}
      </footer>
    </section>
  );
}

function confirmDelete(): boolean {
  try {
    return window.confirm("Delete all tasks from history?");
  } catch {
    return true;
  }
}
