export function McpView({ onDone }: { onDone(): void }) {
  return (
    <section className="view" aria-label="MCP Servers">
      <header className="view-header">
        <h2>MCP Servers</h2>
        <button className="button primary" onClick={onDone}>
          Done
        </button>
      </header>
      <div className="empty-state">
        <span className="codicon codicon-server big-icon" aria-hidden />
        <p>No MCP servers configured</p>
        <p className="muted small">Servers from mcp_settings.json will appear here.</p>
      </div>
    </section>
  );
}
