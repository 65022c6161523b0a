// ModelPicker: the model for the current mode (the plan model when one is set for PLAN).

import { useEffect, useState } from "react";
import { create } from "@bufbuild/protobuf";
import { ApiConfigSchema, Mode, SettingsSchema, StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import type { Controller } from "../state/controller";
import { useApp } from "../state/appStore";

export function ModelPicker({ ctrl, mode }: { ctrl: Controller; mode: Mode }) {
  const settings = useApp(ctrl.app, (s) => s.settings);
  const [models, setModels] = useState<string[]>([]);
  const api = settings?.api;
  const planField = mode === Mode.PLAN && !!api?.planModel;
  const current = (planField ? api?.planModel : api?.model) ?? "";

  useEffect(() => {
    if (!api?.model) return;
    const ac = new AbortController();
    ctrl.client
      .unary(StateService.method.listModels, {}, { signal: ac.signal })
      .then((r) => setModels(r.models))
      .catch(() => {});
    return () => ac.abort();
  }, [ctrl.client, api?.baseUrl, api?.model]);

  if (!settings || !api) return null;
  const options = models.includes(current) || !current ? models : [current, ...models];
  return (
    <select
      className="model-picker"
      aria-label="Model"
      value={current}
      onChange={(e) => {
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
