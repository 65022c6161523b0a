// AutoApproveBar: a one-line summary that expands to the auto-approve categories
// (docs/settings.md, "autoApprove").

import { useId, useState } from "react";
import { create } from "@bufbuild/protobuf";
import { AutoApproveSchema, type AutoApprove } from "@cairn/proto/gen/cairn/v1/state_pb";
import type { Controller } from "../state/controller";
import { useApp } from "../state/appStore";
import { useTaskState } from "../state/taskStore";

type Flag = "readFiles" | "readFilesOutside" | "editFiles" | "editFilesOutside" | "safeCommands" | "allCommands" | "browser" | "localNetwork" | "mcp";

export const categories: { key: Flag; label: string; short: string }[] = [
  { key: "readFiles", label: "Read project files", short: "Read" },
  { key: "readFilesOutside", label: "Read all files", short: "Read all" },
  { key: "editFiles", label: "Edit project files", short: "Edit" },
  { key: "editFilesOutside", label: "Edit all files", short: "Edit all" },
  { key: "safeCommands", label: "Execute safe commands", short: "Safe commands" },
  { key: "allCommands", label: "Execute all commands", short: "All commands" },
  { key: "browser", label: "Use the browser", short: "Browser" },
  { key: "localNetwork", label: "Open pages on this machine or the local network", short: "Local network" },
  { key: "mcp", label: "Use MCP servers", short: "MCP" },
];

export function AutoApproveEditor({ value, onChange }: { value: AutoApprove; onChange(v: AutoApprove): void }) {
  const set = (patch: Partial<AutoApprove>) => onChange(create(AutoApproveSchema, { ...value, ...patch }));
  return (
    <div className="auto-approve-editor">
      <label className="check">
        <input type="checkbox" checked={value.enabled} onChange={(e) => set({ enabled: e.target.checked })} />
        Enable auto-approve
      </label>
      <div className="auto-approve-grid">
        {categories.map((c) => (
          <label key={c.key} className="check">
            <input type="checkbox" checked={value[c.key]} disabled={!value.enabled} onChange={(e) => set({ [c.key]: e.target.checked })} />
            {c.label}
          </label>
        ))}
      </div>
      <label className="check" title=".git/, .vscode/, .clinerules/, .cairn/, .claude/, .cursor/rules/, ignore files, AGENTS.md: files git, the editor or agents run or follow">
        <input type="checkbox" checked={value.protected} disabled={!value.enabled} onChange={(e) => set({ protected: e.target.checked })} />
        Also write protected files (.git, .vscode, rules; off: always ask)
      </label>
      <label className="field-inline">
        Max requests
        <input
          type="number"
          min={1}
          max={1000}
          aria-label="Max requests"
          value={value.maxRequests}
          onChange={(e) => set({ maxRequests: Math.max(1, Number(e.target.value) || 1) })}
        />
      </label>
      <CommandList
        label="Always allowed commands"
        hint="Command prefixes approved without asking, one a line (e.g. npm test)."
        value={value.commandAllowList}
        disabled={!value.enabled}
        onChange={(commandAllowList) => set({ commandAllowList })}
      />
      <CommandList
        label="Never auto-approved commands"
        hint="Commands containing one of these always ask, one a line (e.g. rm -rf)."
        value={value.commandDenyList}
        disabled={!value.enabled}
        onChange={(commandDenyList) => set({ commandDenyList })}
      />
      <label className="check">
        <input type="checkbox" checked={value.yolo} onChange={(e) => set({ yolo: e.target.checked })} />
        YOLO (approve everything)
      </label>
    </div>
  );
}

/** parseList turns the textarea into entries: one a line, trimmed, blank lines and repeats dropped. */
export function parseList(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (t && !out.includes(t)) out.push(t);
  }
  return out;
}

/** CommandList edits a list of command prefixes as lines; it saves when the field loses focus,
 * so a half-typed line is not sent on every keystroke. */
function CommandList({ label, hint, value, disabled, onChange }: { label: string; hint: string; value: string[]; disabled: boolean; onChange(v: string[]): void }) {
  const joined = value.join("\n");
  const [text, setText] = useState(joined);
  const [seen, setSeen] = useState(joined);
  if (joined !== seen) {
    // The settings changed elsewhere (the other editor, a reload): show them.
    setSeen(joined);
    setText(joined);
  }
  // The editor shows twice (the chat's bar and settings): ids must differ.
  const id = useId();
  return (
    <div className="command-list">
      <label htmlFor={id}>{label}</label>
      <textarea
        id={id}
        rows={Math.min(6, Math.max(2, value.length + 1))}
        aria-describedby={`${id}-hint`}
        value={text}
        disabled={disabled}
        spellCheck={false}
        onChange={(e) => setText(e.target.value)}
        onBlur={() => {
          const next = parseList(text);
          if (next.join("\n") !== joined) onChange(next);
        }}
      />
      <span id={`${id}-hint`} className="muted small">
        {hint}
      </span>
    </div>
  );
}

export function AutoApproveBar({ ctrl }: { ctrl: Controller }) {
  const settings = useApp(ctrl.app, (s) => s.settings);
  const task = useTaskState(ctrl.task);
  const [open, setOpen] = useState(false);
  if (!settings) return null;
  // A task with settings of its own (cairn run --connect's flags) has its own policy: the bar
  // shows and changes that task's, and says so.
  const own = task?.ownSettings && task.autoApprove ? task.autoApprove : undefined;
  const aa = own ?? settings.autoApprove ?? ctrl.defaultAutoApprove();
  const summary = approvalSummary(aa);
  return (
    <div className="auto-approve-bar">
      <button className="link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span className={`codicon codicon-chevron-${open ? "down" : "right"}`} aria-hidden />
        <span className="muted aa-label">{own ? "Auto-approve (this task only):" : "Auto-approve:"}</span><span className="aa-summary">{summary}</span>
      </button>
      {open && (
        <AutoApproveEditor
          value={aa}
          onChange={(v) => void (own ? ctrl.updateTaskSettings({ autoApprove: v }) : ctrl.updateAutoApprove(v))}
        />
      )}
    </div>
  );
}

/** approvalSummary names what a policy approves without asking, in a few words. */
export function approvalSummary(aa: AutoApprove): string {
  const on = categories.filter((c) => aa[c.key]).map((c) => c.short);
  if (aa.protected) on.push("Protected");
  return aa.yolo ? "YOLO" : !aa.enabled ? "Off" : on.length ? on.join(", ") : "None";
}
