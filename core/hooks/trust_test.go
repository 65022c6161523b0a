package hooks

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// markScript creates a marker file when it runs.
func markScript(marker string) string { return "#!/bin/sh\ntouch '" + marker + "'\n" }

// TestTrust: a hook runs only while its content is the content the user trusted.
func TestTrust(t *testing.T) {
	cases := []struct {
		name string
		// setup prepares the hook at p with store s; the hook then fires once.
		setup   func(t *testing.T, s *Store, root, p string)
		runs    bool
		skipped string // the reason of the skip note; "" for none
	}{
		{name: "new", setup: func(t *testing.T, s *Store, root, _ string) {
			must(t, s.SetEnabled(root, true))
		}, skipped: "it is new and has not been trusted"},
		{name: "unchanged", setup: func(t *testing.T, s *Store, root, _ string) {
			trustAll(t, s, []string{root}, "")
		}, runs: true},
		{name: "changed", setup: func(t *testing.T, s *Store, root, p string) {
			trustAll(t, s, []string{root}, "")
			appendTo(t, p, "echo changed\n")
		}, skipped: "it changed since it was trusted"},
		{name: "not enabled", setup: func(t *testing.T, s *Store, root, p string) {
			_, err := s.Trust(Hook{Path: p, Scope: root}, "")
			must(t, err)
		}, skipped: "hooks are not enabled for this workspace"},
		{name: "switched off", setup: func(t *testing.T, s *Store, root, p string) {
			trustAll(t, s, []string{root}, "")
			must(t, s.SetHookEnabled(Hook{Path: p, Scope: root}, false))
		}},
		{name: "not executable", setup: func(t *testing.T, s *Store, root, p string) {
			trustAll(t, s, []string{root}, "")
			must(t, os.Chmod(p, 0o644))
		}, skipped: "it is not executable (chmod +x)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			marker := filepath.Join(root, "ran")
			p := writeHook(t, filepath.Join(root, ".cairnrules", "hooks"), TaskStart, markScript(marker))
			r, s := newRunner(t, root, "", 0)
			c.setup(t, s, root, p)
			res := r.Fire(context.Background(), Event{Kind: TaskStart})
			if exists(marker) != c.runs {
				t.Errorf("ran = %v, want %v", exists(marker), c.runs)
			}
			switch {
			case c.skipped == "" && len(res.Notes) != 0:
				t.Errorf("notes = %+v, want none", res.Notes)
			case c.skipped != "" && (len(res.Notes) != 1 || !res.Notes[0].Skipped || res.Notes[0].Text != c.skipped ||
				res.Notes[0].Hook != ".cairnrules/hooks/TaskStart"):
				t.Errorf("notes = %+v, want one skip: %q", res.Notes, c.skipped)
			}
			// A skip is told once per run (runner), not at every event.
			if again := r.Fire(context.Background(), Event{Kind: TaskStart}); c.skipped != "" && len(again.Notes) != 0 {
				t.Errorf("the skip was reported twice: %+v", again.Notes)
			}
		})
	}
}

// TestChangedDuringRun is the rule: trusted at the start of a run, a hook the agent rewrites
// during the run (same path, new bytes) never runs in that run, and neither does a new one.
func TestChangedDuringRun(t *testing.T) {
	root, global := t.TempDir(), t.TempDir()
	ok := filepath.Join(root, "trusted-ran")
	evil := filepath.Join(root, "evil-ran")
	p := writeHook(t, filepath.Join(root, ".clinerules", "hooks"), PreToolUse, markScript(ok))
	r, s := newRunner(t, root, global, 0)
	trustAll(t, s, []string{root}, "")
	must(t, s.SetEnabled(GlobalScope, true))

	r.Fire(context.Background(), Event{Kind: PreToolUse})
	if !exists(ok) {
		t.Fatal("the trusted hook did not run")
	}
	// What a write_to_file of the agent would do: the same file, other content, and new hooks
	// in the other workspace folder and in the global folder.
	must(t, os.WriteFile(p, []byte(markScript(evil)), 0o755))
	writeHook(t, filepath.Join(root, ".cairnrules", "hooks"), PreToolUse, markScript(evil))
	writeHook(t, global, PreToolUse, markScript(evil))
	res := r.Fire(context.Background(), Event{Kind: PreToolUse})
	if exists(evil) {
		t.Fatal("a hook written during the run was executed")
	}
	reasons := map[string]string{}
	for _, n := range res.Notes {
		reasons[n.Hook] = n.Text
	}
	want := map[string]string{
		".clinerules/hooks/PreToolUse": "it changed since it was trusted",
		".cairnrules/hooks/PreToolUse": "it is new and has not been trusted",
		"global/PreToolUse":            "it is new and has not been trusted",
	}
	for k, v := range want {
		if reasons[k] != v {
			t.Errorf("%s: reason %q, want %q", k, reasons[k], v)
		}
	}
}

// TestTrustReviewed: the settings view trusts only the content it showed.
func TestTrustReviewed(t *testing.T) {
	root := t.TempDir()
	p := writeHook(t, filepath.Join(root, ".clinerules", "hooks"), TaskStart, "#!/bin/sh\necho one\n")
	s, err := OpenStore(filepath.Join(t.TempDir(), "hooks.json"))
	must(t, err)
	h := Hook{Kind: TaskStart, Path: p, Scope: root, Executable: true}
	shown := s.Describe([]Hook{h})[0]
	if shown.Status != StatusNew || shown.CurrentSHA256 == "" {
		t.Fatalf("info = %+v", shown)
	}
	appendTo(t, p, "echo two\n")
	if _, err := s.Trust(h, shown.CurrentSHA256); !errors.Is(err, ErrChanged) {
		t.Fatalf("trusting content the user did not see: err = %v", err)
	}
	again := s.Describe([]Hook{h})[0]
	if _, err := s.Trust(h, again.CurrentSHA256); err != nil {
		t.Fatal(err)
	}
	appendTo(t, p, "echo three\n")
	changed := s.Describe([]Hook{h})[0]
	if changed.Status != StatusChanged || changed.Trusted != "#!/bin/sh\necho one\necho two\n" || changed.Current != changed.Trusted+"echo three\n" {
		t.Errorf("changed hook = %+v", changed)
	}
}

// TestStorePersists: trust survives a restart of the daemon; a store that does not parse
// trusts nothing.
func TestStorePersists(t *testing.T) {
	root := t.TempDir()
	p := writeHook(t, filepath.Join(root, ".clinerules", "hooks"), TaskStart, "#!/bin/sh\n")
	file := filepath.Join(t.TempDir(), "hooks.json")
	s, err := OpenStore(file)
	must(t, err)
	trustAll(t, s, []string{root}, "")
	s2, err := OpenStore(file)
	must(t, err)
	if v := s2.check(Hook{Path: p, Scope: root, Executable: true}); !v.run {
		t.Errorf("after reopening: %+v", v)
	}
	must(t, os.WriteFile(file, []byte("{not json"), 0o600))
	s3, err := OpenStore(file)
	if err == nil {
		t.Fatal("a broken trust file opened without an error")
	}
	if v := s3.check(Hook{Path: p, Scope: root, Executable: true}); v.run {
		t.Error("a broken trust file trusted a hook")
	}
}

// TestDiscover lists global hooks, then both workspace folders; other files are ignored.
func TestDiscover(t *testing.T) {
	root, global := t.TempDir(), t.TempDir()
	writeHook(t, global, TaskComplete, "#!/bin/sh\n")
	writeHook(t, filepath.Join(root, ".clinerules", "hooks"), PreToolUse, "#!/bin/sh\n")
	writeHook(t, filepath.Join(root, ".cairnrules", "hooks"), PreToolUse, "#!/bin/sh\n")
	must(t, os.WriteFile(filepath.Join(root, ".clinerules", "hooks", "README.md"), []byte("x"), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, ".clinerules", "hooks", "PostToolUse"), 0o755))
	hs, err := Discover([]string{root}, global)
	must(t, err)
	var names []string
	for _, h := range hs {
		names = append(names, h.Name)
	}
	want := []string{"global/TaskComplete", ".clinerules/hooks/PreToolUse", ".cairnrules/hooks/PreToolUse"}
	if len(names) != len(want) {
		t.Fatalf("names = %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("names = %v, want %v", names, want)
		}
	}
	// A workspace whose .clinerules is a file has no hooks, and that is not an error.
	other := t.TempDir()
	must(t, os.WriteFile(filepath.Join(other, ".clinerules"), []byte("rules"), 0o644))
	if hs, err := Discover([]string{other}, ""); err != nil || len(hs) != 0 {
		t.Errorf("Discover = %v, %v", hs, err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	must(t, err)
	_, err = f.WriteString(s)
	must(t, errors.Join(err, f.Close()))
}
