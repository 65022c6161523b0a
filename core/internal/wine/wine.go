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
