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
	// Symlinks: measured with Wine 8.0, symlinks made by os.Symlink do not resolve as on
	// Windows: a path through a link to a folder stays the link's own path, and a link made
	// in one test is not found at all in the next (GetFileAttributesEx: file not found).
	Symlinks = "Wine 8 does not resolve symlinks made by os.Symlink as Windows does"
	// RemoveWatched: Wine 8 has no POSIX delete semantics (FileDispositionInformationEx), so a
	// folder that a watcher holds open stays until the handle closes and its parent cannot be
	// removed; Windows 10 and later unlink it at once.
	RemoveWatched = "Wine 8 has no POSIX delete semantics: a watched folder outlives its removal"
)
