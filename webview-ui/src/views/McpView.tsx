// McpView: the daemon's MCP servers, live from McpService.WatchMcpServers. Each server shows a
// status dot, its error and stderr tail, enable/disable, restart, delete and timeout, its
// tools (each with an auto-approve checkbox), resources, templates and prompts. "Edit
// settings" opens mcp_settings.json in the editor; remote servers can be added and Cline's
// settings imported. Every change is an RPC; the stream brings the new state back.

import { useEffect, useState } from "react";
import { McpServerStatus, McpService, type McpServer, type WatchMcpServersResponse } from "@cairn/proto/gen/cairn/v1/state_pb";
import type { Controller } from "../state/controller";

const statusText: Record<McpServerStatus, string> = {
  [McpServerStatus.UNSPECIFIED]: "unknown",
  [McpServerStatus.CONNECTING]: "connecting",
  [McpServerStatus.CONNECTED]: "connected",
  [McpServerStatus.DISCONNECTED]: "disconnected",
  [McpServerStatus.DISABLED]: "disabled",
};

const timeouts = [10, 30, 60, 120, 300, 600, 1800];

export function McpView({ ctrl, onDone }: { ctrl: Controller; onDone(): void }) {
  const [state, setState] = useState<WatchMcpServersResponse>();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();

  useEffect(() => {
    const ac = new AbortController();
    (async () => {
      try {
        for await (const r of ctrl.client.stream(McpService.method.watchMcpServers, {}, { signal: ac.signal })) {
          setState(r);
          setError(undefined);
        }
      } catch (e) {
        if (!ac.signal.aborted) setError(e instanceof Error ? e.message : String(e));
      }
    })();
    return () => ac.abort();
  }, [ctrl.client]);

  /** act runs one change and shows its error, if any. */
  const act = async (what: () => Promise<unknown>) => {
    try {
      await what();
      setNotice(undefined);
    } catch (e) {
      setNotice(e instanceof Error ? e.message : String(e));
    }
  };
  const c = ctrl.client;
  const openSettings = () =>
    act(async () => {
      const r = await c.unary(McpService.method.openMcpSettings, { hostId: ctrl.app.get().hostId ?? "" });
      if (!r.opened) setNotice(`Settings file: ${r.path}`);
    });

  const servers = state?.servers ?? [];
  return (
    <section className="view mcp-view" aria-label="MCP Servers">
      <header className="view-header">
        <h2>MCP Servers</h2>
        <button className="button primary" onClick={onDone}>
          Done
        </button>
      </header>
      <div className="mcp-toolbar">
        <button className="button secondary" onClick={openSettings}>
          <span className="codicon codicon-go-to-file" aria-hidden /> Edit settings
        </button>
      </div>
      {notice && (
        <div className="notice" role="status">
          {notice}
        </div>
      )}
      {error && <p className="error-text mcp-pad">Cannot reach the MCP hub: {error}</p>}
      {state?.settingsError && (
        <p className="error-text mcp-pad" role="alert">
          mcp_settings.json: {state.settingsError}
        </p>
      )}
      {state && servers.length === 0 && (
        <div className="empty-state">
          <span className="codicon codicon-server big-icon" aria-hidden />
          <p>No MCP servers configured</p>
          <p className="muted small">Add one below, import Cline's settings, or edit mcp_settings.json.</p>
        </div>
      )}
      <ul className="mcp-servers" aria-label="Servers">
        {servers.map((s) => (
          <ServerCard key={s.name} server={s} ctrl={ctrl} act={act} />
        ))}
      </ul>
      <AddRemote ctrl={ctrl} act={act} />
      <ImportSettings ctrl={ctrl} act={act} />
    </section>
  );
}

type Act = (what: () => Promise<unknown>) => Promise<void>;

function ServerCard({ server: s, ctrl, act }: { server: McpServer; ctrl: Controller; act: Act }) {
  const [open, setOpen] = useState(s.status !== McpServerStatus.DISABLED);
  const c = ctrl.client;
  const status = statusText[s.status];
  return (
    <li className="mcp-server" aria-label={s.name}>
      <div className="mcp-server-head">
        <button className="icon-button" aria-label={open ? `Collapse ${s.name}` : `Expand ${s.name}`} onClick={() => setOpen(!open)}>
          <span className={`codicon codicon-chevron-${open ? "down" : "right"}`} aria-hidden />
        </button>
        <span className={`mcp-dot ${status}`} role="img" aria-label={status} title={status} />
        <span className="mcp-name" title={s.name}>{s.name}</span>
        <span className="muted small mcp-status">{status}</span>
        <span className="mcp-actions">
          <button className="icon-button" aria-label={`Restart ${s.name}`} title="Restart" disabled={s.disabled} onClick={() => act(() => c.unary(McpService.method.restartMcpServer, { name: s.name }))}>
            <span className="codicon codicon-refresh" aria-hidden />
          </button>
          <button
            className="icon-button"
            aria-label={`Delete ${s.name}`}
            title="Delete"
            onClick={() => {
              if (window.confirm?.(`Delete the MCP server ${s.name}?`) ?? true) void act(() => c.unary(McpService.method.deleteMcpServer, { name: s.name }));
            }}
          >
            <span className="codicon codicon-trash" aria-hidden />
          </button>
          <label className="check" title={s.disabled ? "Enable" : "Disable"}>
            <input
              type="checkbox"
              aria-label={`Enable ${s.name}`}
              checked={!s.disabled}
              onChange={(e) => act(() => c.unary(McpService.method.toggleMcpServer, { name: s.name, disabled: !e.target.checked }))}
            />
            {/* Visible, and the start of the accessible name "Enable NAME". */}
            <span className="small">Enable</span>
          </label>
        </span>
      </div>
      {s.error && <p className="error-text mcp-error">{s.error}</p>}
      {open && (
        <div className="mcp-server-body">
          <p className="muted small mcp-target">
            {s.transport}: {s.target}
          </p>
          {s.stderr && s.status !== McpServerStatus.CONNECTED && (
            <details className="mcp-stderr">
              <summary className="small">stderr</summary>
              <pre>{s.stderr}</pre>
            </details>
          )}
          {s.instructions && (
            <details className="mcp-instructions">
              <summary className="small">Instructions</summary>
              <p className="small">{s.instructions}</p>
            </details>
          )}
          {s.tools.length > 0 && (
            <>
              <div className="section-title">Tools</div>
              <ul className="mcp-list" aria-label={`${s.name} tools`}>
                {s.tools.map((t) => (
                  <li key={t.name} className="mcp-tool">
                    <div className="mcp-tool-head">
                      <code>{t.name}</code>
                      <label className="check small">
                        <input
                          type="checkbox"
                          aria-label={`Auto-approve ${t.name}`}
                          checked={t.autoApprove}
                          onChange={(e) => act(() => c.unary(McpService.method.setMcpToolAutoApprove, { server: s.name, tool: t.name, autoApprove: e.target.checked }))}
                        />
                        Auto-approve
                      </label>
                    </div>
                    {t.description && <div className="muted small">{t.description}</div>}
                  </li>
                ))}
              </ul>
            </>
          )}
          {(s.resources.length > 0 || s.resourceTemplates.length > 0) && (
            <>
              <div className="section-title">Resources</div>
              <ul className="mcp-list" aria-label={`${s.name} resources`}>
                {s.resourceTemplates.map((r) => (
                  <li key={r.uriTemplate} className="small">
                    <code>{r.uriTemplate}</code> <span className="muted">{r.name}</span>
                  </li>
                ))}
                {s.resources.map((r) => (
                  <li key={r.uri} className="small">
                    <code>{r.uri}</code> <span className="muted">{r.name}</span>
                  </li>
                ))}
              </ul>
            </>
          )}
          {s.prompts.length > 0 && (
            <>
              <div className="section-title">Prompts</div>
              <ul className="mcp-list" aria-label={`${s.name} prompts`}>
                {s.prompts.map((p) => (
                  <li key={p.name} className="small">
                    <code>
                      /mcp:{s.name}:{p.name}
                    </code>{" "}
                    <span className="muted">{p.description}</span>
                  </li>
                ))}
              </ul>
            </>
          )}
          <label className="field-inline small">
            Timeout
            <select
              aria-label={`Timeout of ${s.name}`}
              value={s.timeoutSeconds}
              onChange={(e) => act(() => c.unary(McpService.method.setMcpServerTimeout, { name: s.name, timeoutSeconds: Number(e.target.value) }))}
            >
              {[...new Set([...timeouts, s.timeoutSeconds])]
                .sort((a, b) => a - b)
                .map((t) => (
                  <option key={t} value={t}>
                    {t < 60 ? `${t} s` : `${t / 60} min`}
                  </option>
                ))}
            </select>
          </label>
        </div>
      )}
    </li>
  );
}

function AddRemote({ ctrl, act }: { ctrl: Controller; act: Act }) {
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [transport, setTransport] = useState("streamableHttp");
  const add = () =>
    act(async () => {
      await ctrl.client.unary(McpService.method.addRemoteMcpServer, { name: name.trim(), url: url.trim(), transport });
      setName("");
      setUrl("");
    });
  return (
    <form
      className="mcp-add"
      aria-label="Add remote server"
      onSubmit={(e) => {
        e.preventDefault();
        void add();
      }}
    >
      <div className="section-title">Add remote server</div>
      <div className="field-row">
        <input aria-label="Server name" placeholder="name" value={name} onChange={(e) => setName(e.target.value)} />
        <select aria-label="Transport" value={transport} onChange={(e) => setTransport(e.target.value)}>
          <option value="streamableHttp">Streamable HTTP</option>
          <option value="sse">SSE</option>
        </select>
      </div>
      <div className="field-row">
        <input aria-label="Server URL" placeholder="https://example.com/mcp" value={url} onChange={(e) => setUrl(e.target.value)} />
        <button className="button secondary" type="submit" disabled={!name.trim() || !url.trim()}>
          Add
        </button>
      </div>
    </form>
  );
}

function ImportSettings({ ctrl, act }: { ctrl: Controller; act: Act }) {
  const [path, setPath] = useState("");
  const [result, setResult] = useState<string>();
  return (
    <form
      className="mcp-add"
      aria-label="Import Cline settings"
      onSubmit={(e) => {
        e.preventDefault();
        void act(async () => {
          const r = await ctrl.client.unary(McpService.method.importMcpSettings, { path: path.trim() });
          setResult(`Imported ${r.added.length}${r.added.length ? `: ${r.added.join(", ")}` : ""}${r.skipped.length ? `; skipped ${r.skipped.join(", ")}` : ""}`);
        });
      }}
    >
      <div className="section-title">Import Cline's MCP settings</div>
      <div className="field-row">
        <input aria-label="Settings file" placeholder="/path/to/cline_mcp_settings.json" value={path} onChange={(e) => setPath(e.target.value)} />
        <button className="button secondary" type="submit" disabled={!path.trim()}>
          Import
        </button>
      </div>
      {result && <p className="muted small">{result}</p>}
    </form>
  );
}
