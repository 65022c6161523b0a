package agent

import (
	"context"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/mcp"
)

// closeMCPWait bounds how long closing a task waits for its own MCP servers to stop.
const closeMCPWait = 5 * time.Second

// taskHub is the MCP hub a task uses: the daemon's, or, when the task brings servers of its
// own (config.Overrides.MCPServers: an ACP session's, README "Use Cairn in Zed, JetBrains,
// Neovim"), a hub of the task's that starts the task's servers and uses the daemon's hub for
// the user's (mcp.Options.Shared), so that those are not started a second time. own is set
// for the latter: the task closes it when it closes, which stops only the task's servers, and
// nothing of it reaches the shared settings or the daemon's hub.
func (a *Assembler) taskHub(o *config.Overrides) (hub *mcp.Hub, own bool) {
	if o == nil || len(o.MCPServers) == 0 {
		return a.cfg.MCP, false
	}
	path := ""
	if a.cfg.MCP != nil {
		path = a.cfg.MCP.SettingsPath()
	}
	h := mcp.New(mcp.Options{SettingsPath: path, ClientVersion: a.cfg.Version, Logger: a.cfg.Logger, NoWatch: true,
		Extra: o.MCPServers, Shared: a.cfg.MCP, Sandbox: MCPSandbox(a.env.Settings, a.cfg.DataDir, a.cfg.Logger)})
	h.Start()
	return h, true
}

// closeMCP stops the task's own MCP servers; the daemon's hub is not the task's to close.
func (t *turns) closeMCP() error {
	if !t.ownMCP {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeMCPWait)
	defer cancel()
	return t.mcp.Close(ctx)
}
