// Package helpertest gives a package's tests a real cairn-helper (core/helper): Main builds it
// once for the test binary and points CAIRN_HELPER at it, unless CAIRN_HELPER already names one
// (as scripts/test-windows-core.sh does for the Windows build under Wine).
package helpertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/helper"
)

// Main builds the helper, runs the tests and exits with their status; call it from TestMain.
func Main(m *testing.M) {
	if os.Getenv(helper.Env) != "" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "cairn-helper-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "helpertest:", err)
		os.Exit(1)
	}
	code := func() int {
		defer func() { _ = os.RemoveAll(dir) }() // a temporary build: nothing to keep
		exe := filepath.Join(dir, helper.Name)
		if err := build(exe); err != nil {
			fmt.Fprintln(os.Stderr, "helpertest:", err)
			return 1
		}
		if err := os.Setenv(helper.Env, exe); err != nil {
			fmt.Fprintln(os.Stderr, "helpertest:", err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

// build builds ./server/cmd/cairn-helper of this module into exe.
func build(exe string) error {
	mod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("finding the module: %w", err)
	}
	cmd := exec.Command("go", "build", "-o", exe, "./server/cmd/cairn-helper")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(mod)))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building cairn-helper: %w\n%s", err, out)
	}
	return nil
}
