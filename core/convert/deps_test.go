package convert

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDaemonLinksNoConverter checks that the daemon leaves the converting libraries to
// cairn-helper: none of them, nor the HTML parser they bring, is among the daemon's
// dependencies (docs/performance.md, "P5 — the daemon at rest").
func TestDaemonLinksNoConverter(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH:", err)
	}
	mod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	cmd := exec.Command("go", "list", "-deps", "./server/cmd/cairn")
	cmd.Dir = filepath.Dir(strings.TrimSpace(string(mod)))
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			stderr = exit.Stderr
		}
		t.Fatalf("go list -deps ./server/cmd/cairn: %v\n%s", err, stderr)
	}
	banned := []string{"github.com/ledongthuc/pdf", "github.com/JohannesKaufmann/html-to-markdown", "golang.org/x/net/html"}
	for _, pkg := range strings.Fields(string(out)) {
		for _, b := range banned {
			if pkg == b || strings.HasPrefix(pkg, b+"/") {
				t.Errorf("the daemon depends on %s, which only cairn-helper may link", pkg)
			}
		}
	}
}
