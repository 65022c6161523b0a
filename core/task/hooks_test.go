package task

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/hooks"
	"github.com/cairnhq/cairn/core/internal/golden"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/edit"
)

// recorder is a hand-written Hooks: it records every event and answers from a table.
type recorder struct {
	// mu guards events.
	mu      sync.Mutex
	events  []hooks.Event
	answers map[hooks.Kind]hooks.Result
}

func (r *recorder) Fire(_ context.Context, ev hooks.Event) hooks.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
	return r.answers[ev.Kind]
}

// lines renders the events, one `Kind {data}` a line, without what varies between runs.
func (r *recorder) lines(t *testing.T, taskID string) string {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, ev := range r.events {
		switch d := ev.Data.(type) {
		case hooks.PostToolData:
			d.ExecutionTimeMs = 0
			ev.Data = d
		case hooks.ResumeData:
			d.PreviousState.LastMessageTs = "<ts>"
			ev.Data = d
		case hooks.CompactData:
			d.ContextSize = 0
			ev.Data = d
		}
		j, err := json.Marshal(ev.Data)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(string(ev.Kind) + " " + strings.ReplaceAll(string(j), taskID, "<task>") + "\n")
	}
	return b.String()
}

func (r *recorder) count(k hooks.Kind) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, ev := range r.events {
		if ev.Kind == k {
			n++
		}
	}
	return n
}

func writeCall(path, content string) llmtest.Turn {
	return llmtest.Turn{Text: "<write_to_file>\n<path>" + path + "</path>\n<content>\n" + content + "</content>\n</write_to_file>"}
}

func editsApproved(s *config.Settings) {
	s.AutoApprove.Enabled, s.AutoApprove.EditFiles, s.AutoApprove.Protected = true, true, true
}

// TestHookEventsGolden drives a task through every hook point — start, a tool, a context
// overflow, completion, feedback, a cancel and a resume — and compares the events the hooks
// received with testdata/hook_events.txt.
func TestHookEventsGolden(t *testing.T) {
	overflow := llmtest.Turn{Fault: &llmtest.Fault{Status: 400,
		Body: `{"error":{"message":"This model's maximum context length is 8192 tokens.","code":"context_length_exceeded"}}`}}
	r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{
		writeCall("a.txt", "hello\n"),
		overflow,
		{Text: completion},
		{Text: "<ask_followup_question>\n<question>Which one?</question>\n</ask_followup_question>"},
		{Text: completion},
	}}, edit.NewWrite())
	r.settings = editsApproved
	rec := &recorder{}
	r.hooks = func(string, string) Hooks { return rec }
	tk := r.newTask("write a.txt")
	waitAsk(t, tk, msg.AskCompletionResult)
	if err := tk.Answer(-1, tools.Answer{Approved: true}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "TaskComplete", func() bool { return rec.count(hooks.TaskComplete) == 1 })
	waitFor(t, "completed", func() bool { return tk.State().Status == StatusCompleted && tk.Done() == nil })
	if _, err := tk.Continue("now ask me", nil); err != nil {
		t.Fatal(err)
	}
	waitAsk(t, tk, msg.AskFollowup)
	if err := tk.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the resume question", func() bool { k := tk.OpenAsk(); return k == msg.AskResumeTask || k == msg.AskResumeCompletedTask })
	if err := tk.Answer(-1, tools.Answer{Text: "the first one"}); err != nil {
		t.Fatal(err)
	}
	waitAsk(t, tk, msg.AskCompletionResult)
	if err := tk.Answer(-1, tools.Answer{Approved: true}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the second TaskComplete", func() bool { return rec.count(hooks.TaskComplete) == 2 })
	golden.File(t, filepath.Join("testdata", "hook_events.txt"), rec.lines(t, tk.ID()))
}

// TestPreToolUseBlocksWrite runs a real PreToolUse script that blocks every write: the file
// stays byte-identical, the chat says so, and the model reads the hook's message as the
// result of its call in the next request, with the hook's context.
func TestPreToolUseBlocksWrite(t *testing.T) {
	r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{writeCall("a.txt", "overwritten\n"), {Text: completion}}}, edit.NewWrite())
	r.settings = editsApproved
	original := []byte("original\r\ncontent without a final newline")
	if err := os.WriteFile(filepath.Join(r.root, "a.txt"), original, 0o644); err != nil {
		t.Fatal(err)
	}
	script := `#!/bin/sh
tool=$(sed -n 's/.*"toolName":"\([a-z_]*\)".*/\1/p')
if [ "$tool" = write_to_file ]; then
  echo '{"cancel": true, "errorMessage": "Writes are frozen during the release.", "contextModification": "Propose the change as a patch instead."}'
else
  echo '{"cancel": false}'
fi
`
	r.hooks = realHooks(t, map[hooks.Kind]testHook{hooks.PreToolUse: {script, "block-writes"}}, 0)
	tk := r.newTask("change a.txt")
	waitAsk(t, tk, msg.AskCompletionResult)

	got, err := os.ReadFile(filepath.Join(r.root, "a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(original) {
		t.Fatalf("a.txt = %q, want it untouched", got)
	}
	reqs := r.llm.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	next := reqs[1].LastUser()
	for _, want := range []string{"[write_to_file for 'a.txt'] Result:\nWrites are frozen during the release.",
		"<hook_context event=\"PreToolUse\">\nPropose the change as a patch instead.\n</hook_context>"} {
		if !strings.Contains(next, want) {
			t.Errorf("the next request lacks %q:\n%s", want, next)
		}
	}
	if !hasRow(tk, msg.SayHook, "A PreToolUse hook blocked write_to_file; it did not run. Writes are frozen during the release.") {
		t.Errorf("no blocked row: %v", rows(tk))
	}
}

// TestContextModificationReachesNextRequest: what a hook adds goes with the next request
// once, not with every later one.
func TestContextModificationReachesNextRequest(t *testing.T) {
	r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{writeCall("b.txt", "b\n"), writeCall("c.txt", "c\n"), {Text: completion}}}, edit.NewWrite())
	r.settings = editsApproved
	rec := &recorder{answers: map[hooks.Kind]hooks.Result{
		hooks.TaskStart: {ContextModification: "The repository uses tabs."},
	}}
	r.hooks = func(string, string) Hooks { return rec }
	tk := r.newTask("write files")
	waitAsk(t, tk, msg.AskCompletionResult)
	reqs := r.llm.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	const added = "<hook_context event=\"TaskStart\">\nThe repository uses tabs.\n</hook_context>"
	if !strings.Contains(reqs[0].LastUser(), added) {
		t.Errorf("the first request lacks the hook's context:\n%s", reqs[0].LastUser())
	}
	if strings.Contains(reqs[1].LastUser(), added) || strings.Contains(reqs[2].LastUser(), added) {
		t.Error("the hook's context was sent again")
	}
}

// TestBrokenHooksGoOn: a hook that sleeps past its (short) timeout and one that prints
// garbage are each shown as a hook row; the tool runs and the task completes.
func TestBrokenHooksGoOn(t *testing.T) {
	r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{writeCall("d.txt", "d\n"), {Text: completion}}}, edit.NewWrite())
	r.settings = editsApproved
	timeout := 200 * time.Millisecond
	if runtime.GOOS == "windows" {
		timeout = 2 * time.Second // cmd.exe starting the test binary can take longer than 200ms
	}
	r.hooks = realHooks(t, map[hooks.Kind]testHook{
		hooks.PreToolUse:  {"#!/bin/sh\nsleep 60\n", "sleep"},
		hooks.PostToolUse: {"#!/bin/sh\necho 'all good!'\n", "garbage"},
	}, timeout)
	tk := r.newTask("write d.txt")
	waitAsk(t, tk, msg.AskCompletionResult)
	if b, err := os.ReadFile(filepath.Join(r.root, "d.txt")); err != nil || string(b) != newFileBody("d\n") {
		t.Fatalf("d.txt = %q, %v: the tool should have run", b, err)
	}
	for _, want := range []string{
		"Hook .clinerules/hooks/" + hookFile("PreToolUse") + " failed: timed out after " + timeout.String() + " and was stopped. The task goes on.",
		"Hook .clinerules/hooks/" + hookFile("PostToolUse") + " failed: printed something that is not a JSON answer: all good!. The task goes on.",
	} {
		if !hasRow(tk, msg.SayHook, want) {
			t.Errorf("no row %q in %v", want, rows(tk))
		}
	}
}

// TestHookWrittenDuringRunNeverRuns: the agent overwrites a trusted hook with its own script
// (auto-approved, protected writes allowed); the new content never runs in the task, and the
// chat says once why the hook was skipped.
func TestHookWrittenDuringRunNeverRuns(t *testing.T) {
	evilMarker := filepath.Join(t.TempDir(), "evil")
	evil := "#!/bin/sh\ntouch " + evilMarker + "\n"
	r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{
		writeCall(".clinerules/hooks/"+hookFile("PreToolUse"), evil),
		writeCall("e.txt", "e\n"),
		writeCall("f.txt", "f\n"),
		{Text: completion},
	}}, edit.NewWrite())
	r.settings = editsApproved
	r.hooks = realHooks(t, map[hooks.Kind]testHook{hooks.PreToolUse: {"#!/bin/sh\necho '{}'\n", "empty"}}, 0)
	tk := r.newTask("write files")
	waitAsk(t, tk, msg.AskCompletionResult)
	if _, err := os.Stat(evilMarker); err == nil {
		t.Fatal("the hook the agent wrote was executed")
	}
	n := 0
	for _, m := range tk.Messages() {
		if m.Kind == msg.SayHook && m.Text == "Hook .clinerules/hooks/"+hookFile("PreToolUse")+" was skipped: it changed since it was trusted. "+
			"Review and trust it in Settings → Hooks (or run cairn run --hooks)." {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d skip rows, want 1: %v", n, rows(tk))
	}
}

// realHooks writes the scripts into the rig's workspace and returns a factory for a real
// runner whose store enabled the workspace and trusted the scripts as they are now.
func realHooks(t *testing.T, scripts map[hooks.Kind]testHook, timeout time.Duration) func(root, taskID string) Hooks {
	if runtime.GOOS == "windows" {
		for k, h := range scripts {
			t.Setenv("CAIRN_TASK_TEST_HOOK_"+string(k), h.act)
		}
	}
	return func(root, taskID string) Hooks {
		dir := filepath.Join(root, ".clinerules", "hooks")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for k, h := range scripts {
			if err := os.WriteFile(filepath.Join(dir, hookFile(string(k))), hookContent(string(k), h), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		st, err := hooks.OpenStore("")
		if err != nil {
			t.Fatal(err)
		}
		if err := st.SetEnabled(root, true); err != nil {
			t.Fatal(err)
		}
		hs, err := hooks.Discover([]string{root}, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hs {
			if _, err := st.Trust(h, ""); err != nil {
				t.Fatal(err)
			}
		}
		return hooks.NewRunner(hooks.Options{Store: st, Roots: []string{root}, TaskID: taskID, Timeout: timeout})
	}
}

func hasRow(tk *Task, kind msg.Kind, text string) bool {
	for _, m := range tk.Messages() {
		if m.Kind == kind && m.Text == text {
			return true
		}
	}
	return false
}

func rows(tk *Task) []string {
	var out []string
	for _, m := range tk.Messages() {
		out = append(out, string(m.Kind)+": "+m.Text)
	}
	return out
}
