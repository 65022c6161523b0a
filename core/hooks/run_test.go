package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
	"time"
)

// dumpScript copies the hook's stdin to $HOOK_DUMP_DIR/<its name>.json.
const dumpScript = "#!/bin/sh\ncat > \"$HOOK_DUMP_DIR/$(basename \"$0\").json\"\n"

// TestInputGolden fires every hook type through a real script that saves its stdin, and
// compares what it received with testdata/input/<Kind>.json.
func TestInputGolden(t *testing.T) {
	root := t.TempDir()
	dump := t.TempDir()
	t.Setenv("HOOK_DUMP_DIR", dump)
	hookDir := filepath.Join(root, ".clinerules", "hooks")
	for _, k := range Kinds {
		writeHook(t, hookDir, k, dumpScript)
	}
	r, s := newRunner(t, root, "", 0)
	trustAll(t, s, []string{root}, "")
	params := map[string]string{"path": "src/a.ts", "content": "x"}
	events := map[Kind]any{
		TaskStart:        TaskData{TaskMetadata{TaskID: "task-1", ULID: "task-1", InitialTask: "add a README"}},
		TaskResume:       ResumeData{TaskMetadata{TaskID: "task-1", ULID: "task-1"}, PreviousState{LastMessageTs: "1764072000000", MessageCount: "7", ConversationHistoryDeleted: "false"}},
		TaskCancel:       TaskData{TaskMetadata{TaskID: "task-1", ULID: "task-1", CompletionStatus: "cancelled"}},
		TaskComplete:     TaskData{TaskMetadata{TaskID: "task-1", ULID: "task-1"}},
		PreToolUse:       PreToolData{ToolName: "write_to_file", Parameters: params},
		PostToolUse:      PostToolData{ToolName: "write_to_file", Parameters: params, Result: "The file was written.", Success: true, ExecutionTimeMs: 12},
		UserPromptSubmit: PromptData{Prompt: "fix the tests", Attachments: []string{}},
		PreCompact:       CompactData{ContextSize: 120000, MessagesToCompact: 14, CompactionStrategy: "truncate"},
	}
	for _, k := range Kinds {
		t.Run(string(k), func(t *testing.T) {
			res := r.Fire(context.Background(), Event{Kind: k, Data: events[k]})
			if len(res.Notes) > 0 {
				t.Fatalf("notes: %+v", res.Notes)
			}
			got, err := os.ReadFile(filepath.Join(dump, string(k)+".json"))
			if err != nil {
				t.Fatal(err)
			}
			got = []byte(strings.ReplaceAll(string(got), root, "$ROOT") + "\n")
			golden.File(t, filepath.Join("testdata", "input", string(k)+".json"), string(got))
		})
	}
}

// TestOutputs covers what a hook may answer and every way it can fail: the task always goes
// on, a failure is a note.
func TestOutputs(t *testing.T) {
	cases := []struct {
		name    string
		script  string
		want    Result
		noteHas string // a failure note containing this; "" for none
	}{
		{name: "allow", script: `echo '{"cancel": false}'`},
		{name: "silent", script: `cat >/dev/null`},
		{name: "block", script: `echo '{"cancel": true, "errorMessage": "no rm here", "contextModification": "use git rm"}'`,
			want: Result{Cancel: true, ErrorMessage: "no rm here", ContextModification: "use git rm"}},
		{name: "context", script: `printf '%s' '{"contextModification": "The project uses tabs."}'`,
			want: Result{ContextModification: "The project uses tabs."}},
		{name: "garbage", script: `echo 'hello, I am not JSON'`, noteHas: "not a JSON answer: hello, I am not JSON"},
		{name: "two answers", script: `echo '{"cancel": true}{"cancel": false}'`, noteHas: "not a JSON answer"},
		{name: "exit 3", script: `echo '{"cancel": true}'; echo broken >&2; exit 3`, noteHas: "exit status 3 (stderr: broken)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			writeHook(t, filepath.Join(root, ".clinerules", "hooks"), PreToolUse, "#!/bin/sh\n"+c.script+"\n")
			r, s := newRunner(t, root, "", 0)
			trustAll(t, s, []string{root}, "")
			got := r.Fire(context.Background(), Event{Kind: PreToolUse, Data: PreToolData{ToolName: "read_file"}})
			if c.noteHas != "" {
				if len(got.Notes) != 1 || got.Notes[0].Skipped || !strings.Contains(got.Notes[0].Text, c.noteHas) {
					t.Fatalf("notes = %+v, want one failure with %q", got.Notes, c.noteHas)
				}
				if got.Cancel {
					t.Error("a failed hook cancelled the tool")
				}
				return
			}
			if len(got.Notes) != 0 {
				t.Fatalf("notes = %+v", got.Notes)
			}
			if got.Cancel != c.want.Cancel || got.ErrorMessage != c.want.ErrorMessage || got.ContextModification != c.want.ContextModification {
				t.Errorf("result = %+v, want %+v", got, c.want)
			}
			if s.Describe([]Hook{{Path: filepath.Join(root, ".clinerules", "hooks", "PreToolUse"), Scope: root}})[0].LastRun.At.IsZero() {
				t.Error("the last run was not recorded")
			}
		})
	}
}

// TestCombined runs a global and two workspace hooks of one type: any cancel cancels, the
// rest is joined.
func TestCombined(t *testing.T) {
	root, global := t.TempDir(), t.TempDir()
	writeHook(t, global, PostToolUse, "#!/bin/sh\necho '{\"contextModification\": \"global says hi\"}'\n")
	writeHook(t, filepath.Join(root, ".clinerules", "hooks"), PostToolUse, "#!/bin/sh\necho '{\"contextModification\": \"cline dir\", \"errorMessage\": \"e1\"}'\n")
	writeHook(t, filepath.Join(root, ".cairnrules", "hooks"), PostToolUse, "#!/bin/sh\necho '{\"cancel\": true, \"errorMessage\": \"e2\"}'\n")
	r, s := newRunner(t, root, global, 0)
	trustAll(t, s, []string{root}, global)
	got := r.Fire(context.Background(), Event{Kind: PostToolUse})
	want := Result{Cancel: true, ContextModification: "global says hi\n\ncline dir", ErrorMessage: "e1\ne2"}
	if got.Notes != nil || got.Cancel != want.Cancel || got.ContextModification != want.ContextModification || got.ErrorMessage != want.ErrorMessage {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// TestTimeoutKillsGroup: a hook that sleeps (in a child) past its timeout is stopped with its
// child, and reported.
func TestTimeoutKillsGroup(t *testing.T) {
	root := t.TempDir()
	pidFile := filepath.Join(root, "child.pid")
	writeHook(t, filepath.Join(root, ".clinerules", "hooks"), PreToolUse,
		"#!/bin/sh\nsleep 60 &\necho $! > '"+pidFile+"'\nwait\necho '{\"cancel\": true}'\n")
	r, s := newRunner(t, root, "", 300*time.Millisecond)
	trustAll(t, s, []string{root}, "")
	got := r.Fire(context.Background(), Event{Kind: PreToolUse})
	if got.Cancel || len(got.Notes) != 1 || !strings.Contains(got.Notes[0].Text, "timed out after 300ms") {
		t.Fatalf("got %+v, want one timeout note and no cancel", got)
	}
	assertGone(t, pidFile)
}

// TestCancelKillsGroup: cancelling the task's context stops a running hook and its child.
func TestCancelKillsGroup(t *testing.T) {
	root := t.TempDir()
	pidFile := filepath.Join(root, "child.pid")
	writeHook(t, filepath.Join(root, ".clinerules", "hooks"), PreToolUse,
		"#!/bin/sh\nsleep 60 &\necho $! > '"+pidFile+".tmp'\nmv '"+pidFile+".tmp' '"+pidFile+"'\nwait\n")
	r, s := newRunner(t, root, "", time.Hour)
	trustAll(t, s, []string{root}, "")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result, 1)
	go func() { done <- r.Fire(ctx, Event{Kind: PreToolUse}) }()
	waitFor(t, pidFile)
	cancel()
	got := <-done
	if got.Cancel || len(got.Notes) != 0 {
		t.Fatalf("got %+v: a cancelled hook says nothing", got)
	}
	assertGone(t, pidFile)
	if run := s.Describe([]Hook{{Path: filepath.Join(root, ".clinerules", "hooks", "PreToolUse"), Scope: root}})[0].LastRun; !strings.Contains(run.Error, "cancelled") {
		t.Errorf("last run = %+v", run)
	}
}

// waitFor waits until path exists (the hook has started); it has no deadline of its own: the
// test's timeout bounds it.
func waitFor(t *testing.T, path string) {
	t.Helper()
	for !exists(path) {
		time.Sleep(10 * time.Millisecond)
	}
}

// assertGone waits until the process whose pid is in pidFile no longer runs (gone, or a
// zombie waiting for its new parent to reap it). SIGKILL is delivered asynchronously, so it
// waits rather than looks once; a process that was never killed keeps it waiting until the
// test binary's timeout fails the test.
func assertGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	for {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if os.IsNotExist(err) {
			return
		}
		if err != nil {
			t.Skipf("cannot read /proc: %v", err)
		}
		fields := strings.Fields(string(stat)[strings.LastIndexByte(string(stat), ')')+1:])
		if len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}
