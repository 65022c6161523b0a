package mcp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/cairnhq/cairn/core/sandbox"
)

// networkRule is why a stdio server may open network connections in the sandbox.
const networkRule = "MCP servers may use the network"

// confine makes cmd, already in its process group, run in the sandbox with the server's own
// profile (docs/sandbox.md): the Workspace tier whose roots are only the folders the entry's
// writablePaths name (their protected paths read-only), the build caches writable (npx fills
// ~/.npm), the credential stores and Cairn's data folder masked, the network on, and a
// private temp folder, which it returns for the caller to remove once the server exited.
func confine(cmd *exec.Cmd, cfg ServerConfig, b sandbox.Base) (string, error) {
	temp, err := os.MkdirTemp("", "cairn-mcp-")
	if err != nil {
		return "", fmt.Errorf("the server's temp folder: %w", err)
	}
	b.Roots, b.Temp = cfg.writable(b.Home), temp
	if err := sandbox.Apply(cmd, b.Policy(sandbox.Workspace, true, networkRule)); err != nil {
		return "", errors.Join(err, os.RemoveAll(temp))
	}
	return temp, nil
}
