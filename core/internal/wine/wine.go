// Package wine tells a test whether its binary runs under Wine rather than on Windows itself.
// The Windows test binaries are run under Wine on Linux (scripts/test-windows-core.sh); a test
// that fails there only because Wine lacks something real Windows has steps aside with Skip,
// saying what is missing, and still runs on a real Windows machine. Only tests import it.
package wine

import "testing"

// Skip skips t when the binary runs under Wine, with reason (what Wine lacks) in the message.
func Skip(t testing.TB, reason string) {
	t.Helper()
	if Detected() {
		t.Skipf("under Wine: %s", reason)
	}
}

// Reasons shared by several packages' tests.
const (
	// FolderSymlinks: measured with Wine 8.0, a symlink to an existing folder made by
	// os.Symlink is not followed when a path through it is resolved (filepath.EvalSymlinks
	// returns the link's own path), while real Windows follows it.
	FolderSymlinks = "Wine 8 does not follow a symlink to a folder when resolving a path through it"
	// RemoveWatched: Wine 8 has no POSIX delete semantics (FileDispositionInformationEx), so a
	// folder that a watcher holds open stays until the handle closes and its parent cannot be
	// removed; Windows 10 and later unlink it at once.
	RemoveWatched = "Wine 8 has no POSIX delete semantics: a watched folder outlives its removal"
)
