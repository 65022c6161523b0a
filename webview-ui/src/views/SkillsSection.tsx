// SkillsSection lists the workspace's and the global skills in Settings, each with a toggle
// that takes effect at once (WorkspaceService.ToggleSkill). A skill that cannot be used is
// shown with the daemon's reason, so a broken SKILL.md is easy to find and fix.

import { useEffect, useState } from "react";
import { WorkspaceService, type SkillEntry } from "@cairn/proto/gen/cairn/v1/workspace_pb";
import type { Controller } from "../state/controller";

/** sourceLabels names where a skill was found, as the settings list shows it. */
const sourceLabels: Record<string, string> = {
  cairn: ".cairn/skills",
  clinerules: ".clinerules/skills",
  claude: ".claude/skills",
  global: "global",
};

export function SkillsSection({ ctrl, root }: { ctrl: Controller; root: string }) {
  const [skills, setSkills] = useState<SkillEntry[]>([]);
  const [error, setError] = useState<string>();

  useEffect(() => {
    const ac = new AbortController();
    ctrl.client
      .unary(WorkspaceService.method.listSkills, { workspaceRoot: root }, { signal: ac.signal })
      .then((r) => {
        setSkills(r.skills);
        setError(undefined);
      })
      .catch((e: unknown) => {
        if (!ac.signal.aborted) setError(e instanceof Error ? e.message : String(e));
      });
    return () => ac.abort();
  }, [ctrl.client, root]);

  const toggle = async (s: SkillEntry) => {
    setSkills((ss) => ss.map((x) => (x.id === s.id ? { ...x, enabled: !s.enabled } : x)));
    await ctrl.client.unary(WorkspaceService.method.toggleSkill, { id: s.id, enabled: !s.enabled }).catch(() => {
      setSkills((ss) => ss.map((x) => (x.id === s.id ? { ...x, enabled: s.enabled } : x)));
    });
  };

  return (
    <fieldset aria-label="Skills">
      <legend>Skills</legend>
      {error && <p className="error-text small">Could not list skills: {error}</p>}
      {!error && skills.length === 0 && (
        <p className="muted small">
          No skills found. A skill is a folder with a SKILL.md in .cairn/skills/, .clinerules/skills/, .claude/skills/ or the
          global skills folder.
        </p>
      )}
      {skills.map((s) => (
        <div key={s.id} className="skill">
          <label className="check rule">
            <input type="checkbox" checked={s.enabled} onChange={() => void toggle(s)} />
            <span className="codicon codicon-lightbulb" aria-hidden />
            <span>{s.name}</span>
            <span className="muted small">{sourceLabels[s.source] ?? s.source}</span>
          </label>
          {s.description && <p className="muted small skill-description">{s.description}</p>}
          {s.problem && (
            <p className="error-text small" role="status">
              Not offered to the model: {s.problem}
            </p>
          )}
        </div>
      ))}
    </fieldset>
  );
}
