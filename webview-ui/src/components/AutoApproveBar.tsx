// AutoApproveBar: a one-line summary that expands to the auto-approve categories (spec §2.2).

import { useState } from "react";
import { create } from "@bufbuild/protobuf";
import { AutoApproveSchema, type AutoApprove } from "../gen/cairn/v1/state_pb";
import type { Controller } from "../state/controller";
import { useApp } from "../state/appStore";

type Flag = "readFiles" | "readFilesOutside" | "editFiles" | "editFilesOutside" | "safeCommands" | "allCommands" | "browser" | "mcp";

export const categories: { key: Flag; label: string; short: string }[] = [
  { key: "readFiles", label: "Read project files", short: "Read" },
  { key: "readFilesOutside", label: "Read all files", short: "Read all" },
  { key: "editFiles", label: "Edit project files", short: "Edit" },
  { key: "editFilesOutside", label: "Edit all files", short: "Edit all" },
  { key: "safeCommands", label: "Execute safe commands", short: "Safe commands" },
  { key: "allCommands", label: "Execute all commands", short: "All commands" },
  { key: "browser", label: "Use the browser", short: "Browser" },
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
      <label className="check">
        <input type="checkbox" checked={value.yolo} onChange={(e) => set({ yolo: e.target.checked })} />
        YOLO (approve everything)
      </label>
    </div>
  );
}

export function AutoApproveBar({ ctrl }: { ctrl: Controller }) {
  const settings = useApp(ctrl.app, (s) => s.settings);
  const [open, setOpen] = useState(false);
  if (!settings) return null;
  const aa = settings.autoApprove ?? ctrl.defaultAutoApprove();
  const on = categories.filter((c) => aa[c.key]).map((c) => c.short);
  if (aa.protected) on.push("Protected");
  const summary = aa.yolo ? "YOLO" : !aa.enabled ? "Off" : on.length ? on.join(", ") : "None";
  return (
    <div className="auto-approve-bar">
      <button className="link-button" aria-expanded={open} aria-label="Auto-approve settings" onClick={() => setOpen(!open)}>
        <span className={`codicon codicon-chevron-${open ? "down" : "right"}`} aria-hidden />
        <span className="muted">Auto-approve:</span> <span className="aa-summary">{summary}</span>
      </button>
      {open && <AutoApproveEditor value={aa} onChange={(v) => void ctrl.updateAutoApprove(v)} />}
    </div>
  );
}
