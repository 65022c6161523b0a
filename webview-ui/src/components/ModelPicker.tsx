// ModelPicker: the model for the current mode (the plan model when one is set for PLAN).

import { useEffect, useState } from "react";
import { create } from "@bufbuild/protobuf";
import { ApiConfigSchema, Mode, SettingsSchema, StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import type { Controller } from "../state/controller";
import { useApp } from "../state/appStore";
import { useTaskState } from "../state/taskStore";

export function ModelPicker({ ctrl, mode }: { ctrl: Controller; mode: Mode }) {
  const settings = useApp(ctrl.app, (s) => s.settings);
  const task = useTaskState(ctrl.task);
  const [models, setModels] = useState<string[]>([]);
  const api = settings?.api;
  const planField = mode === Mode.PLAN && !!api?.planModel;
  // A task with settings of its own picks its own model: the picker shows and changes that
  // task's model only, and says so.
  const own = !!task?.ownSettings;
  const current = (own ? task?.model : planField ? api?.planModel : api?.model) ?? "";

  useEffect(() => {
    if (!api?.model) return;
    const ac = new AbortController();
    ctrl.client
      .unary(StateService.method.listModels, { hostId: ctrl.app.get().hostId }, { signal: ac.signal })
      .then((r) => setModels(r.models))
      .catch(() => {});
    return () => ac.abort();
  }, [ctrl.client, api?.baseUrl, api?.model]);

  if (!settings || !api) return null;
  const options = models.includes(current) || !current ? models : [current, ...models];
  return (
    <select
      className="model-picker"
      aria-label={own ? "Model (this task only)" : "Model"}
      title={own ? "This task has settings of its own: the model changes for this task only" : undefined}
      value={current}
      onChange={(e) => {
        if (own) {
          void ctrl.updateTaskSettings({ model: e.target.value });
          return;
        }
        const next = create(ApiConfigSchema, { ...api, apiKey: "", ...(planField ? { planModel: e.target.value } : { model: e.target.value }) });
        void ctrl.saveSettings(create(SettingsSchema, { ...settings, api: next }));
      }}
    >
      {options.map((m) => (
        <option key={m} value={m}>
          {m}
        </option>
      ))}
    </select>
  );
}
