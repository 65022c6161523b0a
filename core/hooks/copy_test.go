package hooks

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// markerScript is a hook that creates marker, notes the file it runs as ($0) in marker.self
// and answers nothing.
func markerScript(marker string) string {
	return "#!/bin/sh\necho \"$0\" > '" + marker + ".self'\ntouch '" + marker + "'\ncat >/dev/null\n"
}

// selfPath returns what a markerScript recorded as $0.
func selfPath(t *testing.T, marker string) string {
	t.Helper()
	b, err := os.ReadFile(marker + ".self")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// assertCopyGone checks that the file a hook ran as was a copy, not the hook's own file, and
// that neither it nor its directory is left.
func assertCopyGone(t *testing.T, ranAs, hookPath string) {
	t.Helper()
	if ranAs == hookPath {
		t.Fatalf("the hook ran by its own path %s, not from a private copy", hookPath)
	}
	if filepath.Base(ranAs) != filepath.Base(hookPath) {
		t.Errorf("the copy is named %q, want the hook's name %q", filepath.Base(ranAs), filepath.Base(hookPath))
	}
	if exists(ranAs) || exists(filepath.Dir(ranAs)) {
		t.Errorf("the private copy %s (or its directory) is still there after the run", ranAs)
	}
}

// TestSwapAfterCheckRunsTrustedBytes replaces a trusted hook's file after it was read and
// checked and before anything ran: the bytes that were checked run, the new file does not.
func TestSwapAfterCheckRunsTrustedBytes(t *testing.T) {
	root, marks := t.TempDir(), t.TempDir()
	trustedMark, swappedMark := filepath.Join(marks, "trusted"), filepath.Join(marks, "swapped")
	p := writeHook(t, filepath.Join(root, ".clinerules", "hooks"), PreToolUse, markerScript(trustedMark))
	r, s := newRunner(t, root, "", 0)
	trustAll(t, s, []string{root}, "")
	swaps := 0
	r.afterCheck = func(h Hook) {
		swaps++
		if err := os.WriteFile(h.Path, []byte(markerScript(swappedMark)), 0o755); err != nil {
			t.Error(err)
		}
	}

	got := r.Fire(context.Background(), Event{Kind: PreToolUse})
	if swaps != 1 {
		t.Fatalf("the file was swapped %d times, want once", swaps)
	}
	if len(got.Notes) != 0 {
		t.Fatalf("notes = %+v", got.Notes)
	}
	if exists(swappedMark) {
		t.Fatal("the content written after the trust check ran")
	}
	if !exists(trustedMark) {
		t.Fatal("the trusted content did not run")
	}
	assertCopyGone(t, selfPath(t, trustedMark), p)

	// The next event reads the swapped file and skips it: it was never trusted.
	r.afterCheck = nil
	got = r.Fire(context.Background(), Event{Kind: PreToolUse})
	if len(got.Notes) != 1 || !got.Notes[0].Skipped || !strings.Contains(got.Notes[0].Text, "changed since it was trusted") {
		t.Fatalf("notes = %+v, want the swapped file skipped as changed", got.Notes)
	}
	if exists(swappedMark) {
		t.Fatal("the swapped file ran on the next event")
	}

	// The swapped-in script is a working hook: trusted, it runs and leaves its marker, so its
	// absence above means it was not executed.
	trustAll(t, s, []string{root}, "")
	if got := r.Fire(context.Background(), Event{Kind: PreToolUse}); len(got.Notes) != 0 {
		t.Fatalf("notes = %+v", got.Notes)
	}
	if !exists(swappedMark) {
		t.Fatal("the swapped-in script does not run even when trusted; the test proves nothing")
	}
}

// TestChangedBeforeReadSkipped: a file changed after it was trusted and before the runner read
// it is skipped, as it always was, and nothing of it runs.
func TestChangedBeforeReadSkipped(t *testing.T) {
	root, marks := t.TempDir(), t.TempDir()
	trustedMark, changedMark := filepath.Join(marks, "trusted"), filepath.Join(marks, "changed")
	dir := filepath.Join(root, ".clinerules", "hooks")
	writeHook(t, dir, PreToolUse, markerScript(trustedMark))
	r, s := newRunner(t, root, "", 0)
	trustAll(t, s, []string{root}, "")
	writeHook(t, dir, PreToolUse, markerScript(changedMark))

	got := r.Fire(context.Background(), Event{Kind: PreToolUse})
	if len(got.Notes) != 1 || !got.Notes[0].Skipped || !strings.Contains(got.Notes[0].Text, "changed since it was trusted") {
		t.Fatalf("notes = %+v, want the changed hook skipped", got.Notes)
	}
	if exists(changedMark) || exists(trustedMark) {
		t.Fatal("a hook ran although its file changed since it was trusted")
	}
}

// TestCopyKeepsStdioCwdAndExit: run from its copy, a hook gets the same stdin, working
// directory and environment as before, plus CAIRN_HOOK_PATH (its real path, even when the
// daemon's environment has another); its answer and exit status are read as before, and
// messages name the hook's file, not the copy.
func TestCopyKeepsStdioCwdAndExit(t *testing.T) {
	root, dump := t.TempDir(), t.TempDir()
	t.Setenv(pathEnv, "/somewhere/else")
	t.Setenv("HOOK_KEEP", "kept")
	t.Setenv("HOOK_SECRET", "sk-do-not-show")
	stdin := filepath.Join(dump, "stdin.json")
	p := writeHook(t, filepath.Join(root, ".clinerules", "hooks"), PreToolUse, "#!/bin/sh\n"+
		"cat > '"+stdin+"'\n"+
		"printf '{\"cancel\": true, \"errorMessage\": \"%s|%s|%s|%s|%s\"}\\n' \"$(pwd -P)\" \"$CAIRN_HOOK_PATH\" \"$(basename \"$0\")\" \"$HOOK_KEEP\" \"$HOOK_SECRET\"\n")
	s, err := OpenStore("")
	if err != nil {
		t.Fatal(err)
	}
	r := NewRunner(Options{Store: s, Roots: []string{root}, TaskID: "task-1", Version: "test", Now: fixedNow, DropEnv: []string{"HOOK_SECRET"}})
	trustAll(t, s, []string{root}, "")
	ev := Event{Kind: PreToolUse, Data: PreToolData{ToolName: "execute_command", Parameters: map[string]string{"command": "ls"}}}

	got := r.Fire(context.Background(), ev)
	if len(got.Notes) != 0 {
		t.Fatalf("notes = %+v", got.Notes)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	want := realRoot + "|" + p + "|PreToolUse|kept|"
	if !got.Cancel || got.ErrorMessage != want {
		t.Errorf("result = %+v, want cancel with %q", got, want)
	}
	wantIn, err := r.Input(ev)
	if err != nil {
		t.Fatal(err)
	}
	if gotIn, err := os.ReadFile(stdin); err != nil || !bytes.Equal(gotIn, wantIn) {
		t.Errorf("stdin = %q (%v), want %q", gotIn, err, wantIn)
	}

	// A failing hook: its exit status is recorded, and the note names the hook's file where
	// the shell named the copy it ran.
	writeHook(t, filepath.Join(root, ".clinerules", "hooks"), PreToolUse, "#!/bin/sh\ncairn_no_such_command_x\n")
	trustAll(t, s, []string{root}, "")
	got = r.Fire(context.Background(), ev)
	if len(got.Notes) != 1 || got.Notes[0].Skipped || !strings.Contains(got.Notes[0].Text, "exit status 127") {
		t.Fatalf("notes = %+v, want one failure with exit status 127", got.Notes)
	}
	if !strings.Contains(got.Notes[0].Text, p) || strings.Contains(got.Notes[0].Text, "cairn-hook-") {
		t.Errorf("note %q should name %s and not the private copy", got.Notes[0].Text, p)
	}
	if run := s.Describe([]Hook{{Path: p, Scope: root}})[0].LastRun; run.ExitCode != 127 {
		t.Errorf("exit code = %d, want 127", run.ExitCode)
	}

	// A file the system cannot execute (no #! line): the error names the hook, not the copy.
	writeHook(t, filepath.Join(root, ".clinerules", "hooks"), PreToolUse, "echo hi\n")
	trustAll(t, s, []string{root}, "")
	got = r.Fire(context.Background(), ev)
	if len(got.Notes) != 1 || !strings.Contains(got.Notes[0].Text, p) || strings.Contains(got.Notes[0].Text, "cairn-hook-") {
		t.Errorf("notes = %+v, want one failure naming %s", got.Notes, p)
	}
}

// TestCopyEnvShebang: a hook whose #! line goes through env to an interpreter runs from its
// copy and reads its input as before.
func TestCopyEnvShebang(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	root := t.TempDir()
	writeHook(t, filepath.Join(root, ".clinerules", "hooks"), UserPromptSubmit, "#!/usr/bin/env python3\n"+
		"import json, sys\n"+
		"ev = json.load(sys.stdin)\n"+
		"print(json.dumps({\"contextModification\": ev[\"hookName\"] + \": \" + ev[\"userPromptSubmit\"][\"prompt\"]}))\n")
	r, s := newRunner(t, root, "", 0)
	trustAll(t, s, []string{root}, "")
	got := r.Fire(context.Background(), Event{Kind: UserPromptSubmit, Data: PromptData{Prompt: "fix it", Attachments: []string{}}})
	if len(got.Notes) != 0 || got.ContextModification != "UserPromptSubmit: fix it" {
		t.Fatalf("got %+v", got)
	}
}

// TestCopyRemovedAfterTimeout: a hook killed for running too long leaves no copy behind.
func TestCopyRemovedAfterTimeout(t *testing.T) {
	root, marks := t.TempDir(), t.TempDir()
	mark := filepath.Join(marks, "started")
	p := writeHook(t, filepath.Join(root, ".clinerules", "hooks"), PreToolUse,
		"#!/bin/sh\necho \"$0\" > '"+mark+".self'\nsleep 60\n")
	r, s := newRunner(t, root, "", 300*time.Millisecond)
	trustAll(t, s, []string{root}, "")
	got := r.Fire(context.Background(), Event{Kind: PreToolUse})
	if len(got.Notes) != 1 || !strings.Contains(got.Notes[0].Text, "timed out") {
		t.Fatalf("notes = %+v, want a timeout", got.Notes)
	}
	assertCopyGone(t, selfPath(t, mark), p)
}

// TestCopyRemovedAfterCancel: a hook stopped by the task's cancel leaves no copy behind.
func TestCopyRemovedAfterCancel(t *testing.T) {
	root, marks := t.TempDir(), t.TempDir()
	mark := filepath.Join(marks, "started")
	p := writeHook(t, filepath.Join(root, ".clinerules", "hooks"), PreToolUse,
		"#!/bin/sh\necho \"$0\" > '"+mark+".tmp'\nmv '"+mark+".tmp' '"+mark+".self'\nsleep 60\n")
	r, s := newRunner(t, root, "", time.Hour)
	trustAll(t, s, []string{root}, "")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() { done <- r.Fire(ctx, Event{Kind: PreToolUse}) }()
	waitFor(t, mark+".self")
	ranAs := selfPath(t, mark)
	if !exists(ranAs) {
		t.Fatalf("the copy %s is not there while the hook runs", ranAs)
	}
	cancel()
	if got := <-done; len(got.Notes) != 0 {
		t.Fatalf("notes = %+v", got.Notes)
	}
	assertCopyGone(t, ranAs, p)
}

// TestPrivateCopy: the copy holds exactly the given bytes, under the hook's file name, in a
// directory of its own that only its owner can open; remove deletes both.
func TestPrivateCopy(t *testing.T) {
	h := Hook{Kind: PreToolUse, Path: filepath.Join(t.TempDir(), "PreToolUse.cmd"), Name: "PreToolUse.cmd"}
	content := []byte("@echo off\r\necho {}\r\n")
	c, err := privateCopy(h, content)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(c.path) != "PreToolUse.cmd" || filepath.Dir(c.path) != c.dir {
		t.Errorf("copy at %s (dir %s), want PreToolUse.cmd in its own directory", c.path, c.dir)
	}
	got, err := os.ReadFile(c.path)
	if err != nil || !bytes.Equal(got, content) {
		t.Errorf("copy holds %q (%v), want %q", got, err, content)
	}
	if runtime.GOOS != "windows" {
		di, err := os.Stat(c.dir)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(c.path)
		if err != nil {
			t.Fatal(err)
		}
		if di.Mode().Perm() != 0o700 || fi.Mode().Perm()&0o077 != 0 || fi.Mode().Perm()&0o100 == 0 {
			t.Errorf("modes: dir %v, file %v; want a 0700 dir and a file only its owner can use", di.Mode().Perm(), fi.Mode().Perm())
		}
	}
	c.remove(h)
	if exists(c.path) || exists(c.dir) {
		t.Error("remove left the copy behind")
	}
}
