package agent

import (
	"os"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/tools/shell"
	"github.com/cairnhq/cairn/core/workspace"
)

// commandSandbox is how a task's commands are confined (docs/sandbox.md): its roots writable
// (and, for a worktree, the repository's objects, refs and logs), Cairn's data folder and the
// user's credential stores masked, the network as the settings say.
func commandSandbox(s config.Settings, ws *workspace.Workspace, dataDir string) shell.SandboxConfig {
	home, _ := os.UserHomeDir() // "": no home folder to mask
	base := sandbox.Base{Home: home, DataDir: dataDir, ExtraMasks: s.SandboxMaskedPaths}
	for _, r := range ws.Roots() {
		base.Roots = append(base.Roots, r.Path)
		base.Writable = append(base.Writable, sandbox.GitDirs(r.Path)...)
	}
	return shell.SandboxConfig{
		Off:     s.SandboxOff,
		OffRule: "turned off by the user: the sandboxDisabled setting or --no-sandbox",
		Network: s.SandboxNetwork,
		Base:    base,
	}
}
