//go:build unix

package eval

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Installing JavaScript's test tools says so first, so a first run is never minutes of
// silence (README, "Benchmark"); a second set-up with the tools in place says nothing.
func TestSetUpSaysItInstalls(t *testing.T) {
	bin, ex := t.TempDir(), t.TempDir()
	npm := "#!/bin/sh\nmkdir -p node_modules/.bin && touch node_modules/.bin/jest\n"
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(npm), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ex, "package.json"), []byte(`{"devDependencies": {"jest": "^29"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	var progress bytes.Buffer
	tc := &Toolchains{Env: os.Environ(), CacheDir: t.TempDir(), Progress: &progress}
	exs := []Exercise{{Language: "javascript", Name: "x", Dir: ex}}
	if err := tc.SetUp(context.Background(), exs); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(progress.String(), "installing the JavaScript test tools") {
		t.Fatalf("no line before the install: %q", progress.String())
	}
	progress.Reset()
	if err := tc.SetUp(context.Background(), exs); err != nil || progress.Len() != 0 {
		t.Fatalf("second set-up: %v, %q", err, progress.String())
	}
}
