// SubagentsRow renders the row of a use_subagents call: one nested entry per child with its
// prompt, live status, requests, cost and the last tool it used. The daemon replaces the row's
// text (JSON, see core/msg.Subagents) as the children move on. A delegate call's row is the
// same with one child, its subtask, which also names its mode and, once ended, carries its
// chat (SubtaskTranscript opens it).

import type { Message } from "@cairn/proto/gen/cairn/v1/message_pb";
import { formatCost } from "../util/format";
import { toolWords } from "../util/toolWords";
import { parseSubagents } from "../util/subagents";
import { SubtaskTranscript } from "./SubtaskTree";

export const statusIcon: Record<string, string> = {
  running: "loading codicon-modifier-spin",
  done: "pass-filled",
  failed: "error",
};

export function SubagentsRow({ m }: { m: Message }) {
  const children = parseSubagents(m.text);
  const running = children.filter((c) => c.status === "running").length;
  const cost = children.reduce((s, c) => s + c.cost, 0);
  const sub = children.length === 1 && children[0].mode ? children[0] : undefined;
  const title = sub
    ? `Subtask in ${sub.mode}: ${sub.status}`
    : running > 0
      ? `Subagents: ${running} of ${children.length} running`
      : `Subagents: ${children.length} finished`;
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
            {c.mode && <SubtaskTranscript sub={c} />}
          </li>
        ))}
      </ol>
    </div>
  );
}
