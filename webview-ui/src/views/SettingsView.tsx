// SettingsView edits a copy of the daemon's settings and saves them with UpdateSettings;
// rules and workflows toggle at once with WorkspaceService.ToggleRule.

import { useEffect, useState } from "react";
import { clone, create } from "@bufbuild/protobuf";
import {
  ApiConfigSchema,
  SandboxSettingsSchema,
  SettingsSchema,
  StateService,
  TaskLimitsSchema,
  type BrowserStatus,
  type SandboxSettings,
  type SandboxStatus,
  type Settings,
} from "@cairn/proto/gen/cairn/v1/state_pb";
import { WorkspaceService, type RuleEntry } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import type { Controller } from "../state/controller";
import { useApp } from "../state/appStore";
import { AutoApproveEditor } from "../components/AutoApproveBar";
import { ProviderForm } from "../components/ProviderForm";
import { SkillsSection } from "./SkillsSection";
import { HooksSection } from "./HooksSection";

/** browserViewports are the sizes the daemon offers (core/config.BrowserViewports), default first. */
const browserViewports = ["900x600", "1280x800", "768x1024", "375x667"];

export function SettingsView({ ctrl, onDone }: { ctrl: Controller; onDone(): void }) {
  const stored = useApp(ctrl.app, (s) => s.settings);
  const root = useApp(ctrl.app, (s) => s.workspaceRoots[0] ?? "");
  const [draft, setDraft] = useState<Settings>(() => (stored ? clone(SettingsSchema, stored) : create(SettingsSchema)));
  const [rules, setRules] = useState<RuleEntry[]>([]);
  const [saved, setSaved] = useState<string>();
  const [browserTest, setBrowserTest] = useState<string>();
  const [browserStatus, setBrowserStatus] = useState<BrowserStatus>();
  const [sandboxStatus, setSandboxStatus] = useState<SandboxStatus>();

  useEffect(() => {
    if (stored) setDraft(clone(SettingsSchema, stored));
  }, [stored]);

  useEffect(() => {
    const ac = new AbortController();
    ctrl.client
      .unary(WorkspaceService.method.listRules, { workspaceRoot: root }, { signal: ac.signal })
      .then((r) => setRules(r.rules))
      .catch(() => {});
    ctrl.client
      .unary(StateService.method.getState, {}, { signal: ac.signal })
      .then((r) => {
        setBrowserStatus(r.browser);
        setSandboxStatus(r.sandbox);
      })
      .catch(() => {});
    return () => ac.abort();
  }, [ctrl.client, root]);

  const api = draft.api ?? create(ApiConfigSchema);
  const set = (patch: Partial<Settings>) => setDraft(create(SettingsSchema, { ...draft, ...patch }));
  const setApi = (patch: Partial<typeof api>) => set({ api: create(ApiConfigSchema, { ...api, ...patch }) });
  // Untouched, the sandbox settings stay unset in the update and the daemon keeps its values.
  const sandbox = draft.sandbox ?? create(SandboxSettingsSchema);
  const setSandbox = (patch: Partial<SandboxSettings>) => set({ sandbox: create(SandboxSettingsSchema, { ...sandbox, ...patch }) });
  // Numbers are clamped when saved, not while typing.
  const num = (v: string, _min: number, _max: number) => Math.round(Number(v) || 0);

  const toggleRule = async (r: RuleEntry) => {
    setRules((rs) => rs.map((x) => (x.id === r.id ? { ...x, enabled: !r.enabled } : x)));
    await ctrl.client.unary(WorkspaceService.method.toggleRule, { id: r.id, enabled: !r.enabled }).catch(() => {});
  };

  return (
    <section className="view settings-view" aria-label="Settings">
      <header className="view-header">
        <h2>Settings</h2>
        <button
          className="button primary"
          disabled={!stored}
          title={stored ? undefined : "Settings not loaded yet"}
          onClick={async () => {
            const ok = await ctrl.saveSettings(normalize(draft));
            setSaved(ok ? "Saved" : "Save failed");
            if (ok) onDone();
          }}
        >
          Save
        </button>
      </header>
      {saved && (
        <div className="notice" role="status">
          {saved}
        </div>
      )}
      <div className="settings-body">
        <fieldset>
          <legend>API provider</legend>
          <ProviderForm
            ctrl={ctrl}
            id="settings"
            api={api}
            setApi={setApi}
            planModel
            autoFetch
            keyHint={api.apiKeySet ? "A key is stored; leave this empty to keep it." : undefined}
          />
          <label className="field">
            Request idle timeout (seconds)
            <input
              type="number"
              min={0}
              value={api.requestIdleTimeoutSeconds}
              onChange={(e) => setApi({ requestIdleTimeoutSeconds: num(e.target.value, 0, 3600) })}
            />
          </label>
          <label className="field">
            Tool calls
            <select value={api.toolFormat} onChange={(e) => setApi({ toolFormat: e.target.value })} aria-describedby="settings-toolformat-hint">
              <option value="">The model's default</option>
              <option value="native">Native function calling</option>
              <option value="xml">XML in the reply</option>
            </select>
          </label>
          <span id="settings-toolformat-hint" className="muted small">
            The default follows the model table, and XML for a model it does not list.
          </span>
          <label className="field">
            Reasoning effort
            <select value={api.reasoningEffort} onChange={(e) => setApi({ reasoningEffort: e.target.value })}>
              <option value="">Not sent</option>
              <option value="low">Low</option>
              <option value="medium">Medium</option>
              <option value="high">High</option>
            </select>
          </label>
        </fieldset>

        <fieldset>
          <legend>Auto-approve</legend>
          <AutoApproveEditor value={draft.autoApprove ?? ctrl.defaultAutoApprove()} onChange={(v) => set({ autoApprove: v })} />
        </fieldset>

        <fieldset>
          <legend>Features</legend>
          <label className="check">
            <input type="checkbox" checked={draft.checkpointsEnabled} onChange={(e) => set({ checkpointsEnabled: e.target.checked })} />
            Checkpoints
          </label>
          <label className="check">
            <input type="checkbox" checked={draft.focusChainEnabled} onChange={(e) => set({ focusChainEnabled: e.target.checked })} />
            Focus chain (to-do list)
          </label>
          <label className="check">
            <input type="checkbox" checked={draft.worktreeCarryChanges} onChange={(e) => set({ worktreeCarryChanges: e.target.checked })} />
            Worktrees: carry uncommitted changes into a new worktree task
          </label>
          <label className="field-inline">
            Worktrees: merge as
            <select value={draft.worktreeMergeMode || "uncommitted"} onChange={(e) => set({ worktreeMergeMode: e.target.value })}>
              <option value="uncommitted">uncommitted changes</option>
              <option value="commit">a merge commit</option>
            </select>
          </label>
          <label className="field-inline">
            Focus-chain reminder interval (requests)
            <input
              type="number"
              min={1}
              max={100}
              value={draft.focusChainInterval}
              disabled={!draft.focusChainEnabled}
              onChange={(e) => set({ focusChainInterval: num(e.target.value, 1, 100) })}
            />
          </label>
          <label className="check">
            <input type="checkbox" checked={draft.autoCondense} onChange={(e) => set({ autoCondense: e.target.checked })} />
            Auto-condense at
            <input
              type="number"
              min={5}
              max={100}
              className="narrow"
              aria-label="Auto-condense percent"
              value={draft.autoCondensePercent}
              disabled={!draft.autoCondense}
              onChange={(e) => set({ autoCondensePercent: num(e.target.value, 5, 100) })}
            />
            % of the context window
          </label>
          <label className="field-inline">
            Mistake limit
            <input type="number" min={1} max={20} value={draft.mistakeLimit} onChange={(e) => set({ mistakeLimit: num(e.target.value, 1, 20) })} />
          </label>
          <label className="field-inline">
            Max requests per task (0: none)
            <input
              type="number"
              min={0}
              aria-label="Max requests per task"
              value={draft.taskLimits?.maxRequests ?? 0}
              onChange={(e) => set({ taskLimits: create(TaskLimitsSchema, { maxCost: draft.taskLimits?.maxCost ?? 0, maxRequests: Math.max(0, Math.floor(Number(e.target.value) || 0)) }) })}
            />
          </label>
          <label className="field-inline">
            Max cost per task, USD (0: none)
            <input
              type="number"
              min={0}
              step={0.01}
              aria-label="Max cost per task"
              value={draft.taskLimits?.maxCost ?? 0}
              onChange={(e) => set({ taskLimits: create(TaskLimitsSchema, { maxRequests: draft.taskLimits?.maxRequests ?? 0, maxCost: Math.max(0, Number(e.target.value) || 0) }) })}
            />
          </label>
        </fieldset>

        <fieldset>
          <legend>Browser</legend>
          <label className="check">
            <input type="checkbox" checked={draft.browserEnabled} onChange={(e) => set({ browserEnabled: e.target.checked })} />
            Browser tool (for models that see images)
          </label>
          {browserStatus && (
            <p className="muted small" role="note" aria-label="Browser status">
              {browserStatus.found ? `Browser: ${browserStatus.found}` : `Browser off: ${browserStatus.offReason}`}
            </p>
          )}
          <label className="field-inline">
            Viewport
            <select value={draft.browserViewport || browserViewports[0]} onChange={(e) => set({ browserViewport: e.target.value })}>
              {browserViewports.map((v) => (
                <option key={v} value={v}>
                  {v}
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            Browser executable (empty: Chromium, Chrome or Edge found on this machine)
            <input value={draft.browserPath} placeholder="/usr/bin/chromium" onChange={(e) => set({ browserPath: e.target.value })} />
          </label>
          <label className="field">
            Remote browser (DevTools address of a browser started with --remote-debugging-port)
            <input value={draft.browserRemoteUrl} placeholder="http://localhost:9222" onChange={(e) => set({ browserRemoteUrl: e.target.value })} />
          </label>
          <div className="field-inline">
            <button
              className="button secondary"
              disabled={browserTest === "testing"}
              onClick={async () => {
                setBrowserTest("testing");
                try {
                  const r = await ctrl.client.unary(StateService.method.testBrowserConnection, {
                    remoteUrl: draft.browserRemoteUrl,
                    browserPath: draft.browserPath,
                  });
                  setBrowserTest(r.ok ? "Connected" : `Failed: ${r.error}`);
                } catch (e) {
                  setBrowserTest(`Failed: ${String(e)}`);
                }
              }}
            >
              Test connection
            </button>
            {browserTest && (
              <span role="status" aria-label="Browser connection">
                {browserTest === "testing" ? "Testing…" : browserTest}
              </span>
            )}
          </div>
        </fieldset>

        <fieldset>
          <legend>Terminal</legend>
          <label className="field-inline">
            Terminal output limit (lines)
            <input
              type="number"
              min={100}
              max={5000}
              step={100}
              value={draft.outputLineLimit}
              onChange={(e) => set({ outputLineLimit: num(e.target.value, 100, 5000) })}
            />
          </label>
          <label className="field-inline">
            Move a command to the background after (seconds, 0: never)
            <input
              type="number"
              min={0}
              max={86400}
              value={draft.commandWaitSeconds ?? 60}
              onChange={(e) => set({ commandWaitSeconds: num(e.target.value, 0, 86400) })}
            />
          </label>
        </fieldset>

        <fieldset>
          <legend>Sandbox</legend>
          {sandboxStatus && (
            <p className="muted small" role="note" aria-label="Sandbox status">
              {sandboxStatusText(sandboxStatus)}
            </p>
          )}
          <label className="check">
            <input type="checkbox" checked={sandbox.disabled} onChange={(e) => setSandbox({ disabled: e.target.checked })} aria-describedby="settings-sandbox-off-hint" />
            Run commands without the sandbox
          </label>
          <div id="settings-sandbox-off-hint" className="protected-note">
            <span className="codicon codicon-warning" aria-hidden /> Commands, hooks and MCP servers then run with all your rights: they can read your
            credentials and write anywhere, and auto-approved commands run unconfined.
          </div>
          <label className="check">
            <input type="checkbox" checked={sandbox.network} disabled={sandbox.disabled} onChange={(e) => setSandbox({ network: e.target.checked })} />
            Let auto-approved commands use the network
          </label>
          <label className="field">
            More paths that read as absent (one per line; absolute, or ~/ for your home folder)
            <textarea
              rows={3}
              value={sandbox.maskedPaths.join("\n")}
              placeholder="~/.config/acme"
              onChange={(e) => setSandbox({ maskedPaths: e.target.value.split("\n") })}
            />
          </label>
          <span className="muted small">Credential stores (~/.ssh, ~/.aws, ~/.gnupg, …) always read as absent.</span>
        </fieldset>

        <fieldset>
          <legend>General</legend>
          <label className="field">
            Preferred language
            <input value={draft.preferredLanguage} onChange={(e) => set({ preferredLanguage: e.target.value })} placeholder="English" />
          </label>
          <label className="field">
            Custom instructions
            <textarea rows={4} value={draft.customInstructions} onChange={(e) => set({ customInstructions: e.target.value })} />
          </label>
        </fieldset>

        <fieldset>
          <legend>Rules and workflows</legend>
          {rules.length === 0 && <p className="muted small">No rules files found (.clinerules, .cairnrules, .cursorrules, .windsurfrules, AGENTS.md).</p>}
          {rules.map((r) => (
            <label key={r.id} className="check rule">
              <input type="checkbox" checked={r.enabled} onChange={() => void toggleRule(r)} />
              <span className={`codicon codicon-${r.workflow ? "notebook" : "law"}`} aria-hidden />
              <span>{r.name}</span>
              <span className="muted small">
                {r.global ? "global" : r.source}
                {r.workflow ? " · workflow" : ""}
              </span>
            </label>
          ))}
        </fieldset>
        <SkillsSection ctrl={ctrl} root={root} />
        <HooksSection ctrl={ctrl} root={root} />
      </div>
    </section>
  );
}

const clamp = (v: number, min: number, max: number) => Math.min(max, Math.max(min, v));

/** sandboxStatusText says how commands run under the stored settings (README "Security"). */
function sandboxStatusText(s: SandboxStatus): string {
  if (s.off) return "Sandbox off: commands run without the kernel's protection.";
  if (!s.available) return `No sandbox here: ${s.reason} Every command asks.`;
  return `Sandbox on: ${s.mechanism}.`;
}

/** normalize clamps numeric settings to their ranges (0 keeps the daemon's default). */
export function normalize(s: Settings): Settings {
  const n = clone(SettingsSchema, s);
  if (n.outputLineLimit) n.outputLineLimit = clamp(n.outputLineLimit, 100, 5000);
  if (n.focusChainInterval) n.focusChainInterval = clamp(n.focusChainInterval, 1, 100);
  if (n.autoCondensePercent) n.autoCondensePercent = clamp(n.autoCondensePercent, 5, 100);
  if (n.mistakeLimit) n.mistakeLimit = clamp(n.mistakeLimit, 1, 20);
  if (n.commandWaitSeconds !== undefined) n.commandWaitSeconds = clamp(n.commandWaitSeconds, 0, 86400);
  if (n.api) n.api.requestIdleTimeoutSeconds = clamp(n.api.requestIdleTimeoutSeconds, 0, 3600);
  if (n.sandbox) n.sandbox.maskedPaths = n.sandbox.maskedPaths.map((p) => p.trim()).filter((p) => p !== "");
  return n;
}
