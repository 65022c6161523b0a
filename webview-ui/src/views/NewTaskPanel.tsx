// NewTaskPanel: what the chat shows when no task is open — a short intro and recent tasks.

import { useEffect, useState } from "react";
import { TaskService, TaskSort, type TaskSummary } from "@cairn/proto/gen/cairn/v1/task_pb";
import type { Controller } from "../state/controller";
import { useApp } from "../state/appStore";
import { formatDate } from "../util/format";
import { taskCost } from "../util/editorModels";

export function NewTaskPanel({ ctrl }: { ctrl: Controller }) {
  const [recent, setRecent] = useState<TaskSummary[]>([]);
  const root = useApp(ctrl.app, (s) => s.workspaceRoots[0] ?? "");
  useEffect(() => {
    const ac = new AbortController();
    ctrl.client
      .unary(TaskService.method.listTasks, { sort: TaskSort.NEWEST, workspaceRoot: root }, { signal: ac.signal })
      .then((r) => setRecent(r.tasks.slice(0, 3)))
      .catch(() => {});
    return () => ac.abort();
  }, [ctrl.client, root]);
  return (
    <section className="new-task" aria-label="New task">
      <div className="new-task-intro">
        <span className="codicon codicon-hubot big-icon" aria-hidden />
        <h2>What can I do for you?</h2>
        <p className="muted">
          Describe a task. Cairn reads your code, proposes edits and commands, and asks before it acts. Type <code>@</code> to add files,
          problems or terminal output; <code>/</code> for commands.
        </p>
      </div>
      {recent.length > 0 && (
        <div className="recent">
          <div className="section-title">Recent tasks</div>
          {recent.map((t) => (
            <button key={t.taskId} className="recent-item" onClick={() => void ctrl.resumeTask(t.taskId)}>
              <span className="recent-title">{t.title}</span>
              <span className="muted small">
                {formatDate(t.updatedUnixMs)} · {taskCost(t)}
              </span>
            </button>
          ))}
          <button className="link-button" onClick={() => ctrl.app.set({ view: "history" })}>
            View all history
          </button>
        </div>
      )}
    </section>
  );
}
