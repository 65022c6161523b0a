// ProviderForm is the one form for the model provider, used by the welcome view and by
// Settings so that both ask the same things in the same order: Provider, API key, Base URL
// (Azure: resource endpoint, deployment, API version), then the model for ACT mode (and, in
// Settings, for PLAN mode) chosen from the models the endpoint lists. A name the list lacks
// is typed only after choosing "Other"; an empty list says so.

import { useEffect, useRef, useState, type ReactNode } from "react";
import { create } from "@bufbuild/protobuf";
import { ModelEntrySchema, StateService, type ApiConfig, type ModelEntry, type ProviderPreset } from "@cairn/proto/gen/cairn/v1/state_pb";
import type { Controller } from "../state/controller";
import { formatModelPrices, formatTokens } from "../util/format";
import { providerOptions } from "../util/providers";
import { INCLUDED, entryLabel, isEditorModels } from "../util/editorModels";

/** other is the select value that reveals the typed model name. */
const other = "\u0000other";

export function ProviderForm({
  ctrl,
  api,
  setApi,
  id,
  keyHint,
  planModel,
  autoFetch,
}: {
  ctrl: Controller;
  api: ApiConfig;
  setApi(patch: Partial<ApiConfig>): void;
  /** id prefixes the form's element ids (one form per view). */
  id: string;
  /** keyHint is said below the key field (a placeholder that long is cut in a narrow sidebar). */
  keyHint?: ReactNode;
  /** planModel offers the PLAN mode model too. */
  planModel?: boolean;
  /** autoFetch lists the models when the form opens (Settings); the welcome view waits for a key. */
  autoFetch?: boolean;
}) {
  const [presets, setPresets] = useState<ProviderPreset[]>([]);
  const [entries, setEntries] = useState<ModelEntry[]>([]);
  const [error, setError] = useState<string>();
  // Set once an answer came: an empty list is only worth a word after the endpoint answered.
  const [loaded, setLoaded] = useState(false);
  const [busy, setBusy] = useState(false);
  const [fetches, setFetches] = useState(autoFetch ? 1 : 0);
  // The request reads the fields as they are when it goes out.
  const apiRef = useRef(api);
  apiRef.current = api;
  const setApiRef = useRef(setApi);
  setApiRef.current = setApi;
  const preset = presets.find((p) => p.id === api.preset);

  useEffect(() => {
    const ac = new AbortController();
    ctrl.client
      .unary(StateService.method.getState, {}, { signal: ac.signal })
      .then((r) => setPresets(r.presets))
      .catch(() => {});
    return () => ac.abort();
  }, [ctrl.client]);

  useEffect(() => {
    if (fetches === 0) return;
    const ac = new AbortController();
    const a = apiRef.current;
    setError(undefined);
    setBusy(true);
    ctrl.client
      .unary(StateService.method.listModels, { preset: a.preset, baseUrl: a.baseUrl, apiKey: a.apiKey, hostId: ctrl.app.get().hostId }, { signal: ac.signal })
      .then((r) => {
        const list = r.entries.length > 0 ? r.entries : r.models.map((m) => create(ModelEntrySchema, { id: m }));
        setEntries(list);
        setLoaded(true);
        if (!apiRef.current.model && list[0]) setApiRef.current({ model: list[0].id });
      })
      .catch((e: unknown) => {
        if (ac.signal.aborted) return;
        setEntries([]);
        setLoaded(false);
        setError(e instanceof Error ? e.message : String(e));
      })
      .finally(() => {
        if (!ac.signal.aborted) setBusy(false);
      });
    return () => ac.abort();
    // The key is sent as typed only when the user asks for the list, not on every keystroke.
  }, [ctrl.client, fetches]);

  const refetch = () => setFetches((n) => n + 1);
  const azure = !!preset?.azure;
  // The editor's own models need no key or endpoint: the editor lists them.
  const editor = isEditorModels(api.preset);

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
            refetch();
          }}
        >
          {providerOptions(presets).map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </label>
      {!editor && (
        <>
          <label className="field">
            API key
            <input
              type="password"
              value={api.apiKey}
              onChange={(e) => setApi({ apiKey: e.target.value })}
              placeholder={api.apiKeySet ? "•••••• stored" : preset && !preset.needsKey ? "not needed" : "sk-…"}
              autoComplete="off"
              aria-describedby={keyHint ? `${id}-key-hint` : undefined}
            />
          </label>
          {keyHint && (
            <span id={`${id}-key-hint`} className="muted small">
              {keyHint}
            </span>
          )}
          <label className="field">
            {azure ? "Resource endpoint" : "Base URL"}
            <input
              type="url"
              value={api.baseUrl}
              onChange={(e) => setApi({ baseUrl: e.target.value })}
              placeholder={azure ? "https://my-resource.openai.azure.com" : preset?.baseUrl || "https://api.openai.com/v1"}
            />
          </label>
        </>
      )}
      {azure && (
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
      {preset?.cacheControl && <p className="muted small">Requests mark the system prompt and the latest turns for prompt caching.</p>}
      <div className="model-list-header">
        <span>Models{entries.length > 0 ? ` (${entries.length})` : ""}</span>
        <button type="button" className="button secondary small" disabled={busy || (!editor && !api.baseUrl.trim())} onClick={refetch}>
          {loaded || error ? "Fetch models again" : "Fetch models"}
        </button>
      </div>
      {error && (
        <p className="muted small" role="alert">
          Could not list models: {error}
        </p>
      )}
      {!error && loaded && entries.length === 0 && (
        <p className="muted small" role="status">
          The endpoint listed no models: choose "Other" and type the model's name.
        </p>
      )}
      <ModelChoice id={`${id}-act`} label="Act mode model" value={api.model} entries={entries} loaded={loaded} onChange={(model) => setApi({ model })} />
      {planModel && (
        <ModelChoice
          id={`${id}-plan`}
          label="Plan mode model (optional)"
          value={api.planModel}
          entries={entries}
          loaded={loaded}
          emptyLabel="Same as Act"
          onChange={(planModel) => setApi({ planModel })}
        />
      )}
    </>
  );
}

/**
 * ModelChoice picks one of the listed models, or "Other" and a typed name. Until a list came
 * (still loading, or the endpoint could not be asked) a stored name is shown as it is, not as
 * "Other": only a list that lacks it makes it a typed one.
 */
function ModelChoice({
  id,
  label,
  value,
  entries,
  loaded,
  emptyLabel,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  entries: ModelEntry[];
  loaded: boolean;
  /** emptyLabel names the choice of no model (only for an optional one). */
  emptyLabel?: string;
  onChange(model: string): void;
}) {
  const listed = entries.some((e) => e.id === value);
  // Typing is chosen explicitly, or forced by a stored name the list lacks.
  const [typing, setTyping] = useState(false);
  const showInput = typing || (loaded && value !== "" && !listed);
  const unlisted = !showInput && value !== "" && !listed;
  const chosen = entries.find((e) => e.id === value);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        aria-describedby={chosen ? `${id}-facts` : undefined}
        value={showInput ? other : value}
        onChange={(e) => {
          if (e.target.value === other) {
            setTyping(true);
            return;
          }
          setTyping(false);
          onChange(e.target.value);
        }}
      >
        {(emptyLabel !== undefined || (value === "" && !showInput)) && <option value="">{emptyLabel ?? "Choose a model"}</option>}
        {unlisted && <option value={value}>{value}</option>}
        {entries.map((m) => (
          <option key={m.id} value={m.id}>
            {known(m) ? `${entryLabel(m)} · ${modelFacts(m)}` : m.id}
          </option>
        ))}
        <option value={other}>Other (type a name)</option>
      </select>
      {showInput && (
        <input aria-label={`${label}: name`} value={value} onChange={(e) => onChange(e.target.value)} placeholder="model name as the endpoint knows it" />
      )}
      {chosen && (
        <span id={`${id}-facts`} className="muted small">
          {modelFacts(chosen)}
        </span>
      )}
    </div>
  );
}

/** known: something is known about the model, worth its room in the (narrow) list. */
function known(m: ModelEntry): boolean {
  return m.contextWindow > 0n || m.pricesKnown;
}

/** modelFacts is what is known about a listed model: its window and prices ("unknown", never $0). */
function modelFacts(m: ModelEntry): string {
  // Only the editor's models have a vendor; they have no price.
  return `${m.contextWindow > 0n ? `${formatTokens(m.contextWindow)} context` : "context unknown"} · ${m.vendor ? INCLUDED : formatModelPrices(m)}`;
}
