// HooksSection is the settings view's list of hooks: enable them for the workspace (they run
// repository code), review a new or changed hook's diff and trust it, switch one off, and see
// its last run. All decisions are the daemon's (WorkspaceService hook RPCs); this only shows
// them and sends the user's choices.

import { useCallback, useEffect, useState } from "react";
import { HookStatus, type HookEntry, type ListHooksResponse } from "@cairn/proto/gen/cairn/v1/hooks_pb";
import { WorkspaceService } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import type { Controller } from "../state/controller";

const statusLabel: Record<HookStatus, string> = {
  [HookStatus.UNSPECIFIED]: "",
  [HookStatus.TRUSTED]: "trusted",
  [HookStatus.CHANGED]: "changed since trusted",
  [HookStatus.NEW]: "not trusted yet",
};

export function HooksSection({ ctrl, root }: { ctrl: Controller; root: string }) {
  const [list, setList] = useState<ListHooksResponse>();
  const [error, setError] = useState<string>();

  const reload = useCallback(
    (signal?: AbortSignal) =>
      ctrl.client
        .unary(WorkspaceService.method.listHooks, { workspaceRoot: root }, { signal })
        .then((r) => setList(r))
        .catch((e: unknown) => {
          if (!signal?.aborted) setError(String((e as Error)?.message ?? e));
        }),
    [ctrl.client, root],
  );

  useEffect(() => {
    const ac = new AbortController();
    void reload(ac.signal);
    return () => ac.abort();
  }, [reload]);

  const act = async (call: Promise<unknown>) => {
    setError(undefined);
    try {
      await call;
    } catch (e) {
      setError(String((e as Error)?.message ?? e));
    }
    await reload();
  };
  const enable = (global: boolean, enabled: boolean) =>
    act(ctrl.client.unary(WorkspaceService.method.enableHooks, { workspaceRoot: root, global, enabled }));
  const trust = (h: HookEntry) =>
    act(ctrl.client.unary(WorkspaceService.method.trustHook, { workspaceRoot: root, path: h.path, sha256: h.currentSha256 }));
  const toggle = (h: HookEntry) =>
    act(ctrl.client.unary(WorkspaceService.method.toggleHook, { workspaceRoot: root, path: h.path, enabled: !h.enabled }));

  const hooks = list?.hooks ?? [];
  const local = hooks.filter((h) => !h.global);
  const global = hooks.filter((h) => h.global);

  return (
    <fieldset className="hooks-section" aria-label="Hooks">
      <legend>Hooks</legend>
      {error && <p className="error small">{error}</p>}
      {hooks.length === 0 && (
        <p className="muted small">
          No hooks found (.clinerules/hooks, .cairnrules/hooks{list?.globalDir ? `, ${list.globalDir}` : ""}).
        </p>
      )}
      {local.length > 0 && (
        <ScopeSwitch
          label="this workspace"
          enabled={!!list?.workspaceEnabled}
          onChange={(on) => void enable(false, on)}
        />
      )}
      {local.map((h) => (
        <HookRow key={h.path} h={h} onTrust={() => void trust(h)} onToggle={() => void toggle(h)} />
      ))}
      {global.length > 0 && (
        <ScopeSwitch label="the global hooks folder" enabled={!!list?.globalEnabled} onChange={(on) => void enable(true, on)} />
      )}
      {global.map((h) => (
        <HookRow key={h.path} h={h} onTrust={() => void trust(h)} onToggle={() => void toggle(h)} />
      ))}
    </fieldset>
  );
}

function ScopeSwitch({ label, enabled, onChange }: { label: string; enabled: boolean; onChange(on: boolean): void }) {
  if (!enabled) {
    return (
      <div className="hooks-prompt" role="group" aria-label={`Hooks in ${label}`}>
        <p className="small">
          Hooks were found in {label}. They are programs from these files that Cairn would run on your machine at
          points of every task. Enable them only if you trust where they come from; each file must also be trusted below.
        </p>
        <button className="button primary" onClick={() => onChange(true)}>
          Enable hooks for {label}
        </button>
      </div>
    );
  }
  return (
    <label className="check">
      <input type="checkbox" checked onChange={() => onChange(false)} />
      <span>Run hooks from {label}</span>
    </label>
  );
}

/** diffClass colours added and removed lines of a unified diff, not its file headers. */
function diffClass(line: string): string {
  if (line.startsWith("+++") || line.startsWith("---")) return "";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  return "";
}

function HookRow({ h, onTrust, onToggle }: { h: HookEntry; onTrust(): void; onToggle(): void }) {
  const trusted = h.status === HookStatus.TRUSTED;
  const run = h.lastRun;
  return (
    <div className="hook-row" data-status={statusLabel[h.status]}>
      <label className="check rule">
        <input type="checkbox" checked={h.enabled} onChange={onToggle} aria-label={`Enable ${h.name}`} />
        <span className="codicon codicon-zap" aria-hidden />
        <span>{h.name}</span>
        <span className={`muted small hook-status ${trusted ? "" : "warn"}`}>
          {statusLabel[h.status]}
          {h.executable ? "" : " · not executable"}
        </span>
      </label>
      {!trusted && (
        <div className="hook-review">
          <pre className="hook-diff" aria-label={`Changes in ${h.name}`}>
            {h.diff.split("\n").map((line, i) => (
              <span key={i} className={diffClass(line)}>
                {line + "\n"}
              </span>
            ))}
          </pre>
          <button className="button primary" onClick={onTrust}>
            Trust this version
          </button>
        </div>
      )}
      {run && (
        <details className="hook-run">
          <summary className="small">
            Last run: {run.event}, {run.error ? run.error : `exit ${run.exitCode}`}, {String(run.durationMs)} ms
          </summary>
          {run.stdout && <pre className="small">{run.stdout}</pre>}
          {run.stderr && <pre className="small muted">{run.stderr}</pre>}
        </details>
      )}
    </div>
  );
}
