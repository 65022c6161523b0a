// ModePicker: the chat's mode switch (docs/modes.md). Plan and Act stay two buttons; the
// orchestrator and the modes the workspace and the user wrote are in a list beside them, read
// from the daemon (ListModes) when the picker shows and whenever the task changes.

import { useEffect, useState } from "react";
import type { ModeEntry } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import { Mode } from "@cairn/proto/gen/cairn/v1/state_pb";
import type { Controller } from "../state/controller";
import { useApp } from "../state/appStore";

/** builtIns are the modes the two buttons choose. */
const builtIns = new Set(["act", "plan"]);

export function ModePicker({ ctrl, mode, modeSlug }: { ctrl: Controller; mode: Mode; modeSlug: string }) {
  const taskId = useApp(ctrl.app, (s) => s.taskId);
  const roots = useApp(ctrl.app, (s) => s.workspaceRoots.join("\n"));
  const [others, setOthers] = useState<ModeEntry[]>([]);
  useEffect(() => {
    const ac = new AbortController();
    void ctrl.listModes(ac.signal).then((ms) => {
      if (!ac.signal.aborted) setOthers(ms.filter((m) => !builtIns.has(m.slug)));
    });
    return () => ac.abort();
  }, [ctrl, taskId, roots]);
  const custom = modeSlug !== "" && !builtIns.has(modeSlug) ? modeSlug : "";
  const current = others.find((m) => m.slug === custom);
  return (
    <div className="mode-picker">
      <div className="mode-toggle" role="radiogroup" aria-label="Mode">
        <button role="radio" aria-checked={!custom && mode === Mode.PLAN} className={!custom && mode === Mode.PLAN ? "on" : ""} onClick={() => void ctrl.setMode(Mode.PLAN)}>
          Plan
        </button>
        <button
          role="radio"
          aria-checked={!custom && mode !== Mode.PLAN}
          className={!custom && mode !== Mode.PLAN ? "on" : ""}
          onClick={() => void ctrl.setMode(Mode.ACT)}
        >
          Act
        </button>
      </div>
      {(others.length > 0 || custom) && (
        <select
          className={`mode-select${custom ? " on" : ""}`}
          aria-label="Other modes"
          title={current ? `${current.name}: ${current.description}` : "Other modes: the orchestrator and the modes your team wrote"}
          value={custom}
          onChange={(e) => {
            const v = e.target.value;
            if (v) void ctrl.setModeSlug(v);
            else void ctrl.setMode(Mode.ACT);
          }}
        >
          <option value="">Other modes…</option>
          {custom && !current && <option value={custom}>{custom}</option>}
          {others.map((m) => (
            <option key={m.slug} value={m.slug} title={m.description}>
              {m.name}
              {m.editPattern ? ` (edits ${m.editPattern})` : ""}
            </option>
          ))}
        </select>
      )}
    </div>
  );
}
