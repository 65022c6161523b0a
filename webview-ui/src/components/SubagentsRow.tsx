// SubagentsRow renders the row of a use_subagents call: one nested entry per child with its
// prompt, live status, requests, cost and the last tool it used. The daemon replaces the row's
// text (JSON, see core/msg.Subagents) as the children move on.

import type { Message } from "@cairn/proto/gen/cairn/v1/message_pb";
import { formatCost } from "../util/format";
import { toolWords } from "../util/toolWords";

export interface Subagent {
  prompt: string;
  status: "running" | "done" | "failed" | string;
  requests: number;
  cost: number;
  lastTool?: string;
  error?: string;
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
    }));
  } catch {
    return [];
  }
}

const statusIcon: Record<string, string> = {
  running: "loading codicon-modifier-spin",
  done: "pass-filled",
  failed: "error",
};

export function SubagentsRow({ m }: { m: Message }) {
  const children = parseSubagents(m.text);
  const running = children.filter((c) => c.status === "running").length;
  const cost = children.reduce((s, c) => s + c.cost, 0);
  const title = running > 0 ? `Subagents: ${running} of ${children.length} running` : `Subagents: ${children.length} finished`;
  return (
    <div className="subagents-row">
      <div className="row-header">
        <span className="codicon codicon-organization" aria-hidden />
        <span className="row-title">{title}</span>
        {/* Rows carry no prices: a cost of zero may be an unknown price, so only a real one shows. */}
        {cost > 0 && <span className="badge">{formatCost(cost)}</span>}
      </div>
      <ol className="subagents" aria-label="Subagents">
        {children.map((c, i) => (
          <li key={i} className={`subagent ${c.status}`} aria-label={`Subagent ${i + 1}: ${c.status}`}>
            <div className="subagent-head">
              <span className={`codicon codicon-${statusIcon[c.status] ?? "circle-large-outline"}`} aria-hidden />
              <span className="subagent-status">{c.status}</span>
              <span className="subagent-meta">
                {c.requests} {c.requests === 1 ? "request" : "requests"}
                {c.cost > 0 ? ` · ${formatCost(c.cost)}` : ""}
              </span>
            </div>
            <div className="subagent-prompt" title={c.prompt}>
              {c.prompt}
            </div>
            {c.lastTool && (
              <div className="subagent-tool">
                <span className="codicon codicon-tools" aria-hidden /> {toolWords(c.lastTool)}
              </div>
            )}
            {c.error && <div className="subagent-error">{c.error}</div>}
          </li>
        ))}
      </ol>
    </div>
  );
}
