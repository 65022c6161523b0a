// WelcomeView: first run, no model endpoint yet. Base URL, API key, model (fetched from the
// endpoint with ListModels), saved with UpdateSettings.

import { useState } from "react";
import { create } from "@bufbuild/protobuf";
import { ApiConfigSchema, SettingsSchema, StateService } from "@cairn/proto/gen/cairn/v1/state_pb";
import type { Controller } from "../state/controller";
import { useApp } from "../state/appStore";

export function WelcomeView({ ctrl }: { ctrl: Controller }) {
  const settings = useApp(ctrl.app, (s) => s.settings);
  const [baseUrl, setBaseUrl] = useState(settings?.api?.baseUrl || "https://api.openai.com/v1");
  const [apiKey, setApiKey] = useState("");
  const [model, setModel] = useState(settings?.api?.model ?? "");
  const [models, setModels] = useState<string[]>([]);
  const [status, setStatus] = useState<string>();
  const [busy, setBusy] = useState(false);

  const fetchModels = async () => {
    setBusy(true);
    setStatus(undefined);
    try {
      const r = await ctrl.client.unary(StateService.method.listModels, { baseUrl, apiKey });
      setModels(r.models);
      if (!model && r.models[0]) setModel(r.models[0]);
      setStatus(r.models.length ? `${r.models.length} models` : "The endpoint listed no models; type one.");
    } catch (e) {
      setStatus(`Could not list models: ${e instanceof Error ? e.message : String(e)}`);
    } finally {
      setBusy(false);
    }
  };

  const save = async () => {
    const base = settings ?? create(SettingsSchema);
    const api = create(ApiConfigSchema, { ...(base.api ?? create(ApiConfigSchema)), baseUrl: baseUrl.trim(), apiKey: apiKey.trim(), model: model.trim() });
    const ok = await ctrl.saveSettings(create(SettingsSchema, { ...base, api }));
    if (!ok) setStatus("Saving failed");
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
        <label className="field">
          Base URL
          <input type="url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} placeholder="https://api.openai.com/v1" />
        </label>
        <label className="field">
          API key
          <input type="password" value={apiKey} onChange={(e) => setApiKey(e.target.value)} placeholder="sk-…" autoComplete="off" />
        </label>
        <div className="field">
          <label htmlFor="welcome-model">Model</label>
          <div className="field-row">
            <input id="welcome-model" list="welcome-models" value={model} onChange={(e) => setModel(e.target.value)} placeholder="gpt-4o" />
            <datalist id="welcome-models">
              {models.map((m) => (
                <option key={m} value={m} />
              ))}
            </datalist>
            <button type="button" className="button secondary" disabled={busy || !baseUrl} onClick={() => void fetchModels()}>
              Fetch models
            </button>
          </div>
          {status && (
            <span className="muted small" role="status">
              {status}
            </span>
          )}
        </div>
        <button type="submit" className="button primary wide" disabled={!baseUrl.trim() || !model.trim()}>
          Let's go!
        </button>
      </form>
    </section>
  );
}
