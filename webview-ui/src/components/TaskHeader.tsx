// TaskHeader: collapsed, one line with the task's title and its cost when known (README,
// "Providers": one rule for every cost shown); expanded, the model of the current mode, the
// approval policy, tokens, cache, requests and cost against the task's limits (with a control to
// set or raise them) and the context window. The focus-chain checklist follows in both. When the
// task's commands do not run in the sandbox (README "Security"), a pill in the title row says so.

import { useEffect, useState } from "react";
import type { SandboxStatus } from "@cairn/proto/gen/cairn/v1/state_pb";
import type { Controller } from "../state/controller";
import { useTaskState } from "../state/taskStore";
import { costKnown, formatCost, formatTokens } from "../util/format";
import { parseChecklist, serializeChecklist } from "../util/focusChain";
import { approvalSummary } from "./AutoApproveBar";
import { taskCost, taskModel } from "../util/editorModels";

export function TaskHeader({ ctrl }: { ctrl: Controller }) {
  const s = useTaskState(ctrl.task);
  const [expanded, setExpanded] = useState(false);
  const [editing, setEditing] = useState<string | undefined>();
  const [chainOpen, setChainOpen] = useState(true);
  // At a limit the header opens by itself: the limits row and its control are what the user
  // needs next. It stays open after the limit is raised, until the user closes it.
  const limitHit = s ? atLimit(s) : false;
  useEffect(() => {
    if (limitHit) setExpanded(true);
  }, [limitHit]);
  if (!s) return null;
  const ctxWindow = Number(s.contextWindow);
  const used = Number(s.contextTokens);
  const pct = ctxWindow > 0 ? Math.min(100, Math.round((used / ctxWindow) * 100)) : 0;
  const items = parseChecklist(s.focusChain);
  const done = items.filter((i) => i.done).length;
  const title = s.title || "Task";

  return (
    <section className="task-header" aria-label="Task">
      {/* Collapsed, the header is this one line: the title and the cost when it is known. */}
      <div className="task-title-row">
        <button className="link-button task-title" aria-expanded={expanded} onClick={() => setExpanded(!expanded)} title={title}>
          <span className={`codicon codicon-chevron-${expanded ? "down" : "right"}`} aria-hidden />
          <span className={expanded ? "task-text expanded" : "task-text"}>{title}</span>
        </button>
        <SandboxPill sandbox={s.sandbox} />
        {!s.included && costKnown(s) && (
          <span className="badge cost" aria-label="Cost">
            {formatCost(s.cost)}
          </span>
        )}
        <button className="icon-button" aria-label="Export task" title="Export as markdown" onClick={() => void ctrl.exportTask()}>
          <span className="codicon codicon-desktop-download" aria-hidden />
        </button>
      </div>
      {expanded && (
        <>
          <div className="task-settings muted small" aria-label="Task settings">
            <span title="The model answering in the current mode">
              <span className="codicon codicon-hubot" aria-hidden /> {taskModel(s) || "no model"}
            </span>
            <span title="What runs without asking">
              <span className="codicon codicon-shield" aria-hidden /> Auto-approve: {s.autoApprove ? approvalSummary(s.autoApprove) : "unknown"}
            </span>
            {s.ownSettings && <span className="badge">this task's own settings</span>}
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
          <TaskLimitsRow ctrl={ctrl} />
          {ctxWindow > 0 && (
            <div className="context-window" title={`${used.toLocaleString()} / ${ctxWindow.toLocaleString()} tokens`}>
              <span className="muted small">{formatTokens(used)}</span>
              <div className="context-bar" role="progressbar" aria-label="Context window" aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}>
                <div className={`context-fill${pct > 80 ? " high" : ""}`} style={{ width: `${pct}%` }} />
              </div>
              <span className="muted small">{formatTokens(ctxWindow)}</span>
            </div>
          )}
        </>
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

/**
 * SandboxPill warns when the task's commands do not run in the kernel sandbox: the user turned
 * it off, or none can be set up here and every command asks. Nothing when they do, or when the
 * daemon does not say.
 */
export function SandboxPill({ sandbox }: { sandbox?: SandboxStatus }) {
  if (!sandbox) return null;
  if (sandbox.off) {
    return (
      <span className="badge warn" title={`Commands run without the kernel's protection (turned off by ${sandbox.offBy || "--no-sandbox"}).`}>
        Sandbox off
      </span>
    );
  }
  if (!sandbox.available) {
    return (
      <span className="badge warn" title={sandbox.reason || "No command sandbox can be set up here."}>
        No sandbox — every command asks
      </span>
    );
  }
  return null;
}

interface LimitState {
  requests: number;
  cost: number;
  limits?: { maxRequests: number; maxCost: number };
}

/** atLimit reports a task whose requests or cost reached one of its limits. */
function atLimit(s: LimitState): boolean {
  const maxRequests = s.limits?.maxRequests ?? 0;
  const maxCost = s.limits?.maxCost ?? 0;
  return (maxRequests > 0 && s.requests >= maxRequests) || (maxCost > 0 && s.cost >= maxCost);
}

/** TaskLimitsRow shows requests and cost against the task's limits, and edits the limits. */
function TaskLimitsRow({ ctrl }: { ctrl: Controller }) {
  const s = useTaskState(ctrl.task);
  const [editing, setEditing] = useState<{ requests: string; cost: string } | undefined>();
  if (!s) return null;
  const maxRequests = s.limits?.maxRequests ?? 0;
  const maxCost = s.limits?.maxCost ?? 0;
  const save = () => {
    if (!editing) return;
    const r = Math.max(0, Math.floor(Number(editing.requests) || 0));
    const c = Math.max(0, Number(editing.cost) || 0);
    void ctrl.setTaskLimits(r, c);
    setEditing(undefined);
  };
  return (
    <div className={`task-limits${atLimit(s) ? " at-limit" : ""}`} aria-label="Task limits">
      <span title="Model requests against the task's limit" aria-label="Requests">
        <span className="codicon codicon-pulse" aria-hidden />
        {s.requests}
        {maxRequests > 0 ? ` / ${maxRequests}` : ""} {s.requests === 1 && maxRequests <= 1 ? "request" : "requests"}
      </span>
      <span title={s.included ? "The editor's models have no price: a cost limit does not apply" : s.pricesKnown ? "Cost against the task's limit" : "The model's prices are unknown: only costs the provider reports count against the limit"}
        aria-label="Cost limit">
        {taskCost(s)}
        {maxCost > 0 ? ` / ${formatCost(maxCost)}` : " (no cost limit)"}
      </span>
      {editing ? (
        <span className="task-limits-edit">
          <label>
            Max requests
            <input type="number" min={0} step={1} aria-label="Max requests" value={editing.requests}
              onChange={(e) => setEditing({ ...editing, requests: e.target.value })} />
          </label>
          <label>
            Max cost (USD)
            <input type="number" min={0} step={0.01} aria-label="Max cost" value={editing.cost}
              onChange={(e) => setEditing({ ...editing, cost: e.target.value })} />
          </label>
          <button className="button primary" onClick={save}>Save limits</button>
          <button className="button secondary" onClick={() => setEditing(undefined)}>Cancel</button>
        </span>
      ) : (
        // A themed button, not link-like text: the limit's ask tells the user to use it. The
        // visible text is the accessible name (axe: label-content-name-mismatch).
        <button className="small-button"
          onClick={() => setEditing({ requests: String(maxRequests || ""), cost: maxCost ? String(maxCost) : "" })}>
          Set task limits
        </button>
      )}
    </div>
  );
}
