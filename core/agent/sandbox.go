package agent

import (
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/tools/shell"
	"github.com/cairnhq/cairn/core/workspace"
)

// sandboxBase is what every sandboxed process of the settings s starts from: roots writable
// (and a linked worktree's git folders, which lie outside it: git add and commit write there),
// Cairn's data folder dataDir masked around them, the credential stores under the home folder
// and sandboxMaskedPaths masked (docs/sandbox.md).
func sandboxBase(s config.Settings, dataDir string, roots []string) sandbox.Base {
	home, err := os.UserHomeDir()
	if err != nil {
		home = "" // no home: no credential store or build cache of its to place
	}
	b := sandbox.Base{Home: home, DataDir: dataDir, ExtraMasks: s.SandboxMaskedPaths}
	for _, r := range roots {
		r = filepath.Clean(r)
		b.Roots = append(b.Roots, r)
		b.Writable = append(b.Writable, sandbox.GitDirs(r)...)
	}
	return b
}

// commandSandbox is how a task's commands are confined: the settings' switch and network
// choice over the task's roots. Whether a sandbox can be set up here is execute_command's to
// find out: without one, every command asks.
func commandSandbox(s config.Settings, ws *workspace.Workspace, dataDir string) shell.SandboxConfig {
	var roots []string
	for _, r := range ws.Roots() {
		roots = append(roots, r.Path)
	}
	return shell.SandboxConfig{
		Off:     s.SandboxOff,
		OffRule: "turned off by the user: the sandboxDisabled setting or --no-sandbox",
		Network: s.SandboxNetwork,
		Base:    sandboxBase(s, dataDir, roots),
	}
}

// ProcessSandbox returns what the sandbox of a process the user configured (a hook, a stdio
// MCP server, a benchmark's test run) starts from under the settings s, with roots writable
// and Cairn's data folder dataDir masked around them (docs/sandbox.md). It returns nil when
// such processes run plainly: the user turned the sandbox off (why is ""), or no sandbox can
// be set up on this machine (why says so, for the caller to log: these processes are the
// user's own and trusted, so they run without one rather than not at all).
func ProcessSandbox(s config.Settings, dataDir string, roots []string) (b *sandbox.Base, why string) {
	if s.SandboxOff {
		return nil, ""
	}
	if st := sandbox.Probe(); !st.Available {
		return nil, st.Reason
	}
	base := sandboxBase(s, dataDir, roots)
	return &base, ""
}

// MCPSandbox returns an MCP hub's Sandbox option (mcp.Options): each start of a stdio server
// reads settings then, so turning the sandbox off or on applies at the server's next start.
// Where no sandbox can be set up it warns once in log (nil: says nothing) and the servers run
// plainly.
func MCPSandbox(settings func() config.Settings, dataDir string, log *slog.Logger) func() *sandbox.Base {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var warn sync.Once
	return func() *sandbox.Base {
		b, why := ProcessSandbox(settings(), dataDir, nil)
		if why != "" {
			warn.Do(func() {
				log.Warn("MCP servers run without the command sandbox: it cannot be set up here", "reason", why)
			})
		}
		return b
	}
}
