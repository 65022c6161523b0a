package agent

import (
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/sandbox"
)

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
	home, err := os.UserHomeDir()
	if err != nil {
		home = "" // no home: no credential store or build cache of its to place
	}
	b = &sandbox.Base{Home: home, DataDir: dataDir, ExtraMasks: s.SandboxMaskedPaths}
	for _, r := range roots {
		r = filepath.Clean(r)
		b.Roots = append(b.Roots, r)
		// A linked worktree's git folders lie outside it: git add and commit write there.
		b.Writable = append(b.Writable, sandbox.GitDirs(r)...)
	}
	return b, ""
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
