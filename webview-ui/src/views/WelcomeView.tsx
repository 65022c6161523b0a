// WelcomeView: first run, no model endpoint yet. The provider form Settings uses too
// (ProviderForm: provider, key, base URL, the model from the endpoint's list), saved with
// UpdateSettings.

import { useState } from "react";
import { create } from "@bufbuild/protobuf";
import { ApiConfigSchema, SettingsSchema, type ApiConfig } from "@cairn/proto/gen/cairn/v1/state_pb";
import type { Controller } from "../state/controller";
import { useApp } from "../state/appStore";
import { ProviderForm } from "../components/ProviderForm";

export function WelcomeView({ ctrl }: { ctrl: Controller }) {
  const settings = useApp(ctrl.app, (s) => s.settings);
  const [api, setApiState] = useState<ApiConfig>(() =>
    create(ApiConfigSchema, { ...(settings?.api ?? create(ApiConfigSchema)), baseUrl: settings?.api?.baseUrl || "https://api.openai.com/v1", apiKey: "" }),
  );
  const [status, setStatus] = useState<string>();
  const setApi = (patch: Partial<ApiConfig>) => setApiState((a) => create(ApiConfigSchema, { ...a, ...patch }));

  const save = async () => {
    const base = settings ?? create(SettingsSchema);
    const next = create(ApiConfigSchema, {
      ...(base.api ?? create(ApiConfigSchema)),
      preset: api.preset,
      baseUrl: api.baseUrl.trim(),
      apiKey: api.apiKey.trim(),
      model: api.model.trim(),
      azureDeployment: api.azureDeployment.trim(),
      azureApiVersion: api.azureApiVersion.trim(),
    });
    const ok = await ctrl.saveSettings(create(SettingsSchema, { ...base, api: next }));
    setStatus(ok ? undefined : "Saving failed");
  };

  return (
    <section className="view welcome-view" aria-label="Welcome">
      <div className="welcome-intro">
        <span className="codicon codicon-hubot big-icon" aria-hidden />
        <h2>Welcome to Cairn</h2>
        <p className="muted">
          Cairn is a coding agent that works in your editor: it reads files, proposes edits and runs commands — each step with your
          approval. Connect any OpenAI-compatible endpoint (OpenAI, OpenRouter, Ollama, LM Studio, vLLM…) to start.
        </p>
      </div>
      <form
        className="form"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <ProviderForm ctrl={ctrl} id="welcome" api={api} setApi={setApi} />
        {status && (
          <span className="muted small" role="alert">
            {status}
          </span>
        )}
        <button type="submit" className="button primary wide" disabled={!api.baseUrl.trim() || !api.model.trim()}>
          Let's go!
        </button>
      </form>
    </section>
  );
}
