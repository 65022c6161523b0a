package shell

import (
	"os/exec"
	"runtime"
	"testing"

	"github.com/cairnhq/cairn/core/internal/wine"
)

// posixShell is the shell the tests' commands are written for: /bin/sh, and on Windows the sh
// of Git for Windows (Git Bash, one of the shells VS Code offers there), started through the
// Windows terminal code like any configured shell.
func posixShell(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "windows" {
		return "/bin/sh"
	}
	for _, name := range []string{"sh", "bash"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	wine.Skip(t, "the Wine prefix has no POSIX sh (Git for Windows)")
	t.Fatal("no sh on PATH: these tests run their commands in Git for Windows' sh")
	return ""
}
