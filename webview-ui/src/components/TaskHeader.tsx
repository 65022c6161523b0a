// TaskHeader: the task's title, tokens, cost, context window and focus-chain checklist.

import { useState } from "react";
import type { Controller } from "../state/controller";
import { useTaskState } from "../state/taskStore";
import { formatCost, formatTokens } from "../util/format";
import { parseChecklist, serializeChecklist } from "../util/focusChain";

export function TaskHeader({ ctrl }: { ctrl: Controller }) {
  const s = useTaskState(ctrl.task);
  const [expanded, setExpanded] = useState(false);
  const [editing, setEditing] = useState<string | undefined>();
  const [chainOpen, setChainOpen] = useState(true);
  if (!s) return null;
  const ctxWindow = Number(s.contextWindow);
  const used = Number(s.contextTokens);
  const pct = ctxWindow > 0 ? Math.min(100, Math.round((used / ctxWindow) * 100)) : 0;
  const items = parseChecklist(s.focusChain);
  const done = items.filter((i) => i.done).length;
  const title = s.title || "Task";

  return (
    <section className="task-header" aria-label="Task">
      <div className="task-title-row">
        <button className="link-button task-title" aria-expanded={expanded} onClick={() => setExpanded(!expanded)} title={title}>
          <span className={`codicon codicon-chevron-${expanded ? "down" : "right"}`} aria-hidden />
          <span className={expanded ? "task-text expanded" : "task-text"}>{title}</span>
        </button>
        <span className="badge cost" aria-label="Cost">
          {formatCost(s.cost)}
        </span>
      </div>
      <div className="task-stats">
        <span title="Tokens in" aria-label="Tokens in">
          <span className="codicon codicon-arrow-up" aria-hidden />
          {formatTokens(s.tokensIn)}
        </span>
        <span title="Tokens out" aria-label="Tokens out">
          <span className="codicon codicon-arrow-down" aria-hidden />
          {formatTokens(s.tokensOut)}
        </span>
        {(s.cacheReads > 0n || s.cacheWrites > 0n) && (
          <span title="Cache writes / reads">
            <span className="codicon codicon-database" aria-hidden />+{formatTokens(s.cacheWrites)} → {formatTokens(s.cacheReads)}
          </span>
        )}
      </div>
      {ctxWindow > 0 && (
        <div className="context-window" title={`${used.toLocaleString()} / ${ctxWindow.toLocaleString()} tokens`}>
          <span className="muted small">{formatTokens(used)}</span>
          <div className="context-bar" role="progressbar" aria-label="Context window" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}>
            <div className={`context-fill${pct > 80 ? " high" : ""}`} style={{ width: `${pct}%` }} />
          </div>
          <span className="muted small">{formatTokens(ctxWindow)}</span>
        </div>
      )}
      {(items.length > 0 || editing !== undefined) && (
        <div className="focus-chain">
          <div className="focus-chain-head">
            <button className="link-button" aria-expanded={chainOpen} onClick={() => setChainOpen(!chainOpen)}>
              <span className={`codicon codicon-chevron-${chainOpen ? "down" : "right"}`} aria-hidden />
              To-do {done}/{items.length}
            </button>
            <div className="progress-mini" aria-hidden>
              <div style={{ width: `${items.length ? (done / items.length) * 100 : 0}%` }} />
            </div>
            <button className="icon-button" aria-label="Edit to-do list" onClick={() => setEditing(editing === undefined ? s.focusChain : undefined)}>
              <span className="codicon codicon-edit" aria-hidden />
            </button>
          </div>
          {editing !== undefined ? (
            <div className="focus-chain-edit">
              <textarea aria-label="To-do list markdown" rows={Math.min(10, items.length + 2)} value={editing} onChange={(e) => setEditing(e.target.value)} />
              <div className="buttons">
                <button className="button primary" onClick={() => { void ctrl.updateFocusChain(editing); setEditing(undefined); }}>
                  Save list
                </button>
                <button className="button secondary" onClick={() => setEditing(undefined)}>
                  Cancel edit
                </button>
              </div>
            </div>
          ) : (
            chainOpen && (
              <ul className="checklist">
                {items.map((it, i) => (
                  <li key={i} className={it.done ? "done" : ""}>
                    <label>
                      <input
                        type="checkbox"
                        checked={it.done}
                        onChange={() => {
                          const next = items.map((x, j) => (j === i ? { ...x, done: !x.done } : x));
                          void ctrl.updateFocusChain(serializeChecklist(next));
                        }}
                      />
                      {it.text}
                    </label>
                  </li>
                ))}
              </ul>
            )
          )}
        </div>
      )}
    </section>
  );
}
