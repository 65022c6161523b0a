package envdetails

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
	"time"
	_ "time/tzdata" // the zone tests must not depend on the machine's tz database

	"github.com/cairnhq/cairn/core/tools/shell"
	"github.com/cairnhq/cairn/core/workspace"
)

// writeTree creates files (path → content) below dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func newWorkspace(t *testing.T, roots ...string) *workspace.Workspace {
	t.Helper()
	ws, err := workspace.New(roots...)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// TestBuildGolden renders whole blocks with a fixed clock and compares them with
// testdata/<name>.golden (temp paths shown as $TMP).
func TestBuildGolden(t *testing.T) {
	cases := []struct {
		name  string
		input func(t *testing.T, tmp string) Input
	}{
		{"first_turn_act", func(t *testing.T, tmp string) Input {
			app := filepath.Join(tmp, "app")
			writeTree(t, app, map[string]string{
				"go.mod":              "module example.com/app\n",
				"Makefile":            "all:\n",
				"main.go":             "package main\n",
				"README.md":           "# app\n",
				"secret.txt":          "token\n",
				"build.out":           "binary\n",
				"src/util.go":         "package src\n",
				"node_modules/x/x.js": "x\n",
				".gitignore":          "*.out\n",
				".cairnignore":        "secret.txt\nMakefile\n",
			})
			writeTree(t, tmp, map[string]string{"elsewhere/notes.txt": "n\n"})
			ws := newWorkspace(t, app)

			reg := shell.NewRegistry()
			dev := track(t, reg, "npm run dev")
			dev.print(t, "ready on :3000\n")
			test := track(t, reg, "go test ./...")
			test.print(t, "ok  \texample.com/app\t0.01s\n")
			test.exit()

			recent := newTracker(t)
			main := filepath.Join(app, "main.go")
			recent.Files([]string{main}, nil)
			ch := recent.changed()
			if err := os.WriteFile(main, []byte("package main\n\nfunc main() {}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			waitEvent(t, ch)

			return Input{
				IDE:       "Visual Studio Code",
				Workspace: ws,
				Editor: &fakeEditor{
					visible: []string{main, filepath.Join(app, "secret.txt"), filepath.Join(app, "gone.go"), "src/util.go"},
					tabs:    []string{main, filepath.Join(app, "README.md"), filepath.Join(tmp, "elsewhere", "notes.txt"), main},
				},
				Terminals:     reg,
				Recent:        recent,
				First:         true,
				Mode:          "act",
				ContextTokens: 12345,
				ContextWindow: 128_000,
				Now:           time.Date(2026, 3, 14, 9, 26, 53, 0, zone(t, "Asia/Kolkata")),
				CLITools:      func() []string { return []string{"git", "go", "make"} },
			}
		}},
		{"later_turn_plan_multiroot", func(t *testing.T, tmp string) Input {
			writeTree(t, tmp, map[string]string{"app/main.go": "package main\n", "lib/lib.go": "package lib\n"})
			return Input{
				IDE:           "Cairn CLI",
				Workspace:     newWorkspace(t, filepath.Join(tmp, "app"), filepath.Join(tmp, "lib")),
				Terminals:     shell.NewRegistry(),
				Recent:        NewTracker(nil),
				Mode:          "plan",
				ContextTokens: 150_000,
				ContextWindow: 200_000,
				Now:           time.Date(2026, 1, 5, 23, 59, 0, 0, zone(t, "America/St_Johns")),
				CLITools:      func() []string { panic("CLI tools are first-turn only") },
			}
		}},
		{"first_turn_multiroot", func(t *testing.T, tmp string) Input {
			// Each root's files are listed; the other root's entries carry its name.
			writeTree(t, filepath.Join(tmp, "app"), map[string]string{"main.go": "package main\n", "src/util.go": "package src\n"})
			writeTree(t, filepath.Join(tmp, "lib"), map[string]string{"lib.go": "package lib\n", "internal/x.go": "package internal\n", ".ignore": "skip/\n", "skip/y.go": "y\n"})
			return Input{
				IDE:           "Visual Studio Code",
				Workspace:     newWorkspace(t, filepath.Join(tmp, "app"), filepath.Join(tmp, "lib")),
				First:         true,
				Mode:          "act",
				ContextTokens: 1000,
				ContextWindow: 128_000,
				Now:           time.Date(2026, 3, 14, 9, 26, 53, 0, time.UTC),
				CLITools:      func() []string { return nil },
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tmp, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			in := c.input(t, tmp)
			got := Build(context.Background(), in)
			// tmp as JSON writes it (backslashes doubled on Windows), as is, and with slashes.
			for _, form := range []string{strings.ReplaceAll(tmp, `\`, `\\`), tmp, filepath.ToSlash(tmp)} {
				got = strings.ReplaceAll(got, form, "$TMP")
			}
			if runtime.GOOS == "windows" {
				// Roots show as Windows writes them, other paths with slashes; the golden
				// files hold one spelling.
				got = strings.ReplaceAll(strings.ReplaceAll(got, `\\`, "/"), `\`, "/")
			}
			if in.Recent != nil {
				_ = in.Recent.Close()
			}
			golden.File(t, filepath.Join("testdata", c.name+".golden"), got)
		})
	}
}

// TestBuildSectionsOnce checks what a second turn repeats and what it does not: terminal
// output and recently modified files are reported once; the editor files every turn.
func TestBuildSectionsOnce(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.go": "package a\n"})
	ws := newWorkspace(t, dir)
	a := filepath.Join(ws.Root(), "a.go")
	reg := shell.NewRegistry()
	cmd := track(t, reg, "make watch")
	cmd.print(t, "built\n")
	recent := newTracker(t)
	recent.Files([]string{a}, nil)
	ch := recent.changed()
	writeTree(t, dir, map[string]string{"a.go": "package a // changed\n"})
	waitEvent(t, ch)

	in := Input{IDE: "X", Workspace: ws, Editor: &fakeEditor{visible: []string{a}}, Terminals: reg, Recent: recent,
		CLITools: func() []string { return nil }}
	first := Build(context.Background(), in)
	second := Build(context.Background(), in)
	for _, want := range []string{"# X Visible Files\na.go\n", "### New Output\nbuilt\n", "# Recently Modified Files\n"} {
		if !strings.Contains(first, want) {
			t.Errorf("first block lacks %q:\n%s", want, first)
		}
	}
	if !strings.Contains(second, "# X Visible Files\na.go\n") || !strings.Contains(second, "## Command 1: `make watch`\n") {
		t.Errorf("second block lost the editor files or the running command:\n%s", second)
	}
	for _, gone := range []string{"built", "# Recently Modified Files", "# Current Working Directory"} {
		if strings.Contains(second, gone) {
			t.Errorf("second block repeats %q:\n%s", gone, second)
		}
	}
}

func TestEditorFailureShowsNothing(t *testing.T) {
	ws := newWorkspace(t, t.TempDir())
	got := Build(context.Background(), Input{IDE: "X", Workspace: ws, Editor: &fakeEditor{err: os.ErrDeadlineExceeded}})
	if !strings.Contains(got, "# X Visible Files\n"+text("no_visible")+"\n") || !strings.Contains(got, "# X Open Tabs\n"+text("no_tabs")+"\n") {
		t.Errorf("Build with a failing editor:\n%s", got)
	}
}

func TestFirstTurnInHomeFolderIsNotListed(t *testing.T) {
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder")
	}
	got := Build(context.Background(), Input{IDE: "X", Workspace: newWorkspace(t, home), First: true,
		CLITools: func() []string { return nil }})
	if !strings.Contains(got, text("list_refused")) || !strings.Contains(got, "# Detected CLI Tools\n"+text("no_tools")+"\n") {
		t.Errorf("home folder block:\n%s", got)
	}
}

func TestContextUsage(t *testing.T) {
	cases := []struct {
		tokens, window int64
		want           string
	}{
		{12345, 128_000, "12,345 / 128K tokens used (10%)"},
		{0, 0, "0 / 128K tokens used (0%)"},
		{994, 1000, "994 / 1K tokens used (99%)"},
		{995, 1000, "995 / 1K tokens used (100%)"},
		{1_000_000, 1_000_000, "1,000,000 / 1000K tokens used (100%)"},
		{64_000, 200_000, "64,000 / 200K tokens used (32%)"},
	}
	for _, c := range cases {
		if got := ContextUsage(c.tokens, c.window); got != c.want {
			t.Errorf("ContextUsage(%d, %d) = %q, want %q", c.tokens, c.window, got, c.want)
		}
	}
}

// waitEvent waits for the tracker to record a change event. The bound only turns a lost
// event into a failure instead of a hung test; nothing is asserted about how long it took.
func waitEvent(t *testing.T, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(30 * time.Second):
		t.Fatal("no change event from the tracker")
	}
}
