// QueuedMessages: what the user sent while the task works. The daemon keeps the queue (it
// outlives this view) and sends it when the current step ends; each message can be taken back,
// and Interrupt stops the step so the queue goes at once.

import { useTaskState } from "../state/taskStore";
import type { Controller } from "../state/controller";

export function QueuedMessages({ ctrl }: { ctrl: Controller }) {
  const state = useTaskState(ctrl.task);
  const queued = state?.queued ?? [];
  if (queued.length === 0) return null;
  return (
    <section className="queued-messages" aria-label="Queued messages">
      <div className="queued-head">
        <span className="muted small">Sent when the current step ends</span>
        <button className="small-button" title="Stop the current step; the queued messages go next" onClick={() => void ctrl.interrupt()}>
          Interrupt
        </button>
      </div>
      <ul>
        {queued.map((q) => (
          <li key={q.id} className="queued-message">
            <span className="badge">Queued</span>
            <span className="queued-text" title={q.text}>
              {q.text || `${q.imageCount} image${q.imageCount === 1 ? "" : "s"}`}
            </span>
            <button className="icon-button" aria-label={`Remove queued message: ${q.text.slice(0, 40)}`} title="Remove" onClick={() => void ctrl.removeQueued(q.id)}>
              <span className="codicon codicon-close" aria-hidden />
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
