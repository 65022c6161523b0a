// ProviderPicker chooses the provider preset and lists its models with what is known about
// them (context window, prices per million tokens). Picking a preset fills in its endpoint;
// picking a model row sets the Act mode model. The fields come in the order Provider, Base URL,
// API key (given by the caller), models.

import { useEffect, useState, type ReactNode } from "react";
import { StateService, type ApiConfig, type ModelEntry, type ProviderPreset } from "@cairn/proto/gen/cairn/v1/state_pb";
import type { Controller } from "../state/controller";
import { formatModelPrices, formatTokens } from "../util/format";
import { INCLUDED, entryLabel, isEditorModels } from "../util/editorModels";

export function ProviderPicker({
  ctrl,
  api,
  setApi,
  presets,
  keyField,
}: {
  ctrl: Controller;
  api: ApiConfig;
  setApi(patch: Partial<ApiConfig>): void;
  presets: ProviderPreset[];
  /** keyField is the API key input, placed after the endpoint and before the models. */
  keyField?: ReactNode;
}) {
  const preset = presets.find((p) => p.id === api.preset);
  const [entries, setEntries] = useState<ModelEntry[]>([]);
  const [error, setError] = useState<string>();
  const [reload, setReload] = useState(0);
  // Set once an answer came: an empty list is only worth a word after the endpoint answered.
  const [loaded, setLoaded] = useState(false);

  useEffect(() => {
    const ac = new AbortController();
    setError(undefined);
    ctrl.client
      .unary(StateService.method.listModels, { preset: api.preset, baseUrl: api.baseUrl, apiKey: api.apiKey, hostId: ctrl.app.get().hostId }, { signal: ac.signal })
      .then((r) => {
        setEntries(r.entries);
        setLoaded(true);
      })
      .catch((e: unknown) => {
        if (!ac.signal.aborted) {
          setEntries([]);
          setError(e instanceof Error ? e.message : String(e));
        }
      });
    return () => ac.abort();
    // The key is sent as typed only on an explicit refresh, not on every keystroke.
  }, [ctrl.client, api.preset, reload]);

  return (
    <>
      <label className="field">
        Provider
        <select
          aria-label="Provider"
          value={api.preset}
          onChange={(e) => {
            const next = presets.find((p) => p.id === e.target.value);
            setApi({ preset: e.target.value, baseUrl: next?.baseUrl || (next?.azure ? "" : api.baseUrl) });
          }}
        >
          <option value="">OpenAI-compatible (other)</option>
          {presets
            .filter((p) => p.id !== "openai-compatible")
            .map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
        </select>
      </label>
      {!isEditorModels(api.preset) && <label className="field">
        {preset?.azure ? "Resource endpoint" : "Base URL"}
        <input
          value={api.baseUrl}
          onChange={(e) => setApi({ baseUrl: e.target.value })}
          placeholder={preset?.azure ? "https://my-resource.openai.azure.com" : preset?.baseUrl || "https://api.openai.com/v1"}
        />
      </label>}
      {preset?.azure && (
        <>
          <label className="field">
            Deployment
            <input value={api.azureDeployment} onChange={(e) => setApi({ azureDeployment: e.target.value })} placeholder="same as the model" />
          </label>
          <label className="field">
            API version
            <input value={api.azureApiVersion} onChange={(e) => setApi({ azureApiVersion: e.target.value })} placeholder="2024-10-21" />
          </label>
        </>
      )}
      {!isEditorModels(api.preset) && keyField}
      {preset?.cacheControl && <p className="muted small">Requests mark the system prompt and the latest turns for prompt caching.</p>}
      <div className="model-list-header">
        <span>Models{entries.length > 0 ? ` (${entries.length})` : ""}</span>
        <button className="button secondary small" onClick={() => setReload((n) => n + 1)}>
          Refresh
        </button>
      </div>
      {error && (
        <p className="muted small" role="alert">
          Could not list models: {error}
        </p>
      )}
      {!error && loaded && entries.length === 0 && (
        <p className="muted small" role="status">
          The endpoint listed no models: type the model's name below.
        </p>
      )}
      <ul className="model-list" aria-label="Models">
        {entries.map((m) => (
          <li key={m.id}>
            <button
              className={m.id === api.model ? "model-row selected" : "model-row"}
              aria-pressed={m.id === api.model}
              onClick={() => setApi({ model: m.id })}
            >
              <span className="model-id">{entryLabel(m)}</span>
              <span className="muted small">
                {m.contextWindow > 0n ? `${formatTokens(m.contextWindow)} context` : "context unknown"} · {isEditorModels(api.preset) ? INCLUDED : formatModelPrices(m)}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </>
  );
}
