package task

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/host/direct"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/llm/openai"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/interact"
	"github.com/cairnhq/cairn/core/workspace"
)

// The runtime's concurrency and failure rules (run.go, core/task/conversation), each shown by a test that
// failed before they were written.

const completion = "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>"

// rig is a manager on a temporary store and workspace, talking to a fake model.
type rig struct {
	t     *testing.T
	llm   *llmtest.Server
	mgr   *Manager
	st    *store.Store
	root  string // the workspace
	extra []tools.Tool
	// settings edits the task settings.
	settings func(*config.Settings)
	// sleep, when set, is the tasks' clock for backoff waits (default: no wait).
	sleep func(ctx context.Context, d time.Duration) error
	// info is the model's table entry (zero: an unknown model, XML tool calls); turns, when
	// set, builds each task's turns.
	info  llm.ModelInfo
	turns func() Turns
	// commands, when set, are each task's background commands (background_test.go).
	commands func() BackgroundCommands
	// hooks, when set, runs the tasks' hooks (hooks_test.go).
	hooks func(root, taskID string) Hooks
}

func newRig(t *testing.T, script llmtest.Script, extra ...tools.Tool) *rig {
	t.Helper()
	r := &rig{t: t, llm: llmtest.New(t, script), extra: extra}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r.st = st
	root := t.TempDir()
	r.root = root
	r.mgr = NewManager(st, func(context.Context, Options) (Deps, error) {
		ws, err := workspace.New(root)
		if err != nil {
			return Deps{}, err
		}
		reg := tools.NewRegistry(r.extra...)
		for _, tl := range interact.All(nil) {
			reg.Add(tl)
		}
		s := config.Default()
		if r.settings != nil {
			r.settings(&s)
		}
		sleep := r.sleep
		if sleep == nil {
			sleep = func(context.Context, time.Duration) error { return nil }
		}
		var turns Turns
		if r.turns != nil {
			turns = r.turns()
		}
		var cmds BackgroundCommands
		if r.commands != nil {
			cmds = r.commands()
		}
		var hk Hooks
		if r.hooks != nil {
			hk = r.hooks(root, "")
		}
		return Deps{Provider: openai.New(openai.Config{BaseURL: r.llm.URL(), APIKey: "k"}), Model: "fake",
			ModelInfo: r.info, Registry: reg, Host: direct.New("", []string{root}), Files: ws, Settings: s,
			Sleep: sleep, Turns: turns, Commands: cmds, Hooks: hk}, nil
	})
	t.Cleanup(func() { r.mgr.CloseAll(context.Background()) })
	return r
}

// waitFor polls cond (a test failing here shows what it waited for). The bound is generous:
// the Windows test binaries run under Wine on a loaded machine, where a task with its
// checkpoints takes seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (r *rig) newTask(text string) *Task {
	r.t.Helper()
	tk, err := r.mgr.New(context.Background(), Options{Workspace: []string{"."}}, text, nil, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	return tk
}

func waitAsk(t *testing.T, tk *Task, kind msg.Kind) {
	t.Helper()
	waitFor(t, "ask "+string(kind), func() bool { return tk.OpenAsk() == kind })
}

// Eight concurrent Continue calls on an idle task start exactly one run; the others wait in
// the queue and reach the model as feedback, each once.
func TestConcurrentContinueStartsOneRun(t *testing.T) {
	turns := []llmtest.Turn{{Text: "<ask_followup_question>\n<question>Which?</question>\n</ask_followup_question>"}}
	for i := range 8 {
		// Each completion differs: the same call twice in a row would be stopped as a loop.
		done := fmt.Sprintf("<attempt_completion>\n<result>Done %d.</result>\n</attempt_completion>", i)
		turns = append(turns, llmtest.Turn{Text: "Thinking.\n" + done, Delay: llmtest.Duration(20 * time.Millisecond), ChunkSize: 4})
	}
	r := newRig(t, llmtest.Script{Turns: turns})
	tk := r.newTask("start")
	waitAsk(t, tk, msg.AskFollowup)
	// Leave the question unanswered but cancel it, so the task is idle with no open ask.
	if err := tk.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitAsk(t, tk, msg.AskResumeTask)
	if err := tk.Answer(-1, tools.Answer{}); err != nil { // "Resume": a run starts
		t.Fatal(err)
	}
	waitAsk(t, tk, msg.AskCompletionResult)
	if err := tk.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitAsk(t, tk, msg.AskResumeTask)
	// Withdraw the resume question the way a restore does, leaving the task idle.
	if err := tk.state.WithdrawResume(context.Background()); err != nil {
		t.Fatal(err)
	}

	var started, queued atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			q, err := tk.Continue(fmt.Sprintf("go on %d", i), nil)
			switch {
			case err != nil && !errors.Is(err, ErrStaleAsk) && !errors.Is(err, ErrNoOpenAsk):
				t.Errorf("Continue: %v", err)
			case q:
				queued.Add(1)
			default:
				started.Add(1)
			}
		}()
	}
	wg.Wait()
	if started.Load() < 1 {
		t.Fatalf("started %d runs, queued %d; want one run", started.Load(), queued.Load())
	}
	feedback := func() map[string]int {
		seen := map[string]int{}
		for _, m := range tk.Messages() {
			if m.Kind == msg.SayUserFeedback {
				for _, line := range strings.Split(m.Text, "\n\n") {
					seen[line]++
				}
			}
		}
		return seen
	}
	waitFor(t, "every message as feedback", func() bool {
		return len(feedback()) == 8 && tk.OpenAsk() == msg.AskCompletionResult && len(tk.State().Queued) == 0
	})
	for text, n := range feedback() {
		if n != 1 {
			t.Errorf("%q sent %d times", text, n)
		}
	}
	// Cancel returns promptly: the one run stops.
	start := time.Now()
	if err := tk.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d >= cancelWait {
		t.Fatalf("Cancel took %s", d)
	}
}

// Opening a saved task (which asks to resume) and clearing it, 50 times, leaves no goroutine.
func TestOpenClearLeavesNoGoroutine(t *testing.T) {
	r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{{Text: completion}}})
	tk := r.newTask("once")
	waitAsk(t, tk, msg.AskCompletionResult)
	id := tk.ID()
	r.mgr.Clear(context.Background(), id)
	runtime.GC()
	before := runtime.NumGoroutine()
	for range 50 {
		tk, err := r.mgr.Open(context.Background(), id, "")
		if err != nil {
			t.Fatal(err)
		}
		waitAsk(t, tk, msg.AskResumeCompletedTask)
		r.mgr.Clear(context.Background(), id)
	}
	waitFor(t, "goroutines to end", func() bool { return runtime.NumGoroutine() <= before+2 })
}

// Changing auto-approval while tools run is race-free (run with -race).
func TestAutoApproveChangesWhileToolsRun(t *testing.T) {
	var turns []llmtest.Turn
	for i := range 30 { // distinct calls: the loop stop leaves them alone
		turns = append(turns, llmtest.Turn{Text: fmt.Sprintf("<slow_tool>\n<n>%d</n>\n</slow_tool>", i), ChunkSize: 3})
	}
	turns = append(turns, llmtest.Turn{Text: completion})
	r := newRig(t, llmtest.Script{Turns: turns}, slowTool{})
	r.settings = func(s *config.Settings) { s.AutoApprove.YOLO = true }
	tk := r.newTask("loop")
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			p := config.Default().AutoApprove
			p.YOLO, p.ReadFiles = true, i%2 == 0
			r.mgr.SetAutoApprove(p)
		}
	}()
	waitAsk(t, tk, msg.AskCompletionResult)
	close(stop)
	<-done
}

// slowTool asks for approval (reading the live policy) and takes a moment.
type slowTool struct{}

func (slowTool) Spec() tools.Spec {
	return tools.Spec{Name: "slow_tool", Description: "Waits.", Category: tools.CategoryRead, PlanSafe: true,
		Params: []tools.Param{{Name: "n"}}}
}

func (slowTool) Run(ctx context.Context, env *tools.Env, _ tools.Call) (tools.Result, error) {
	if _, err := env.UI.Approve(ctx, tools.Approval{Ask: msg.AskTool, Category: tools.CategoryRead, Inside: true}); err != nil {
		return tools.Result{}, err
	}
	time.Sleep(time.Millisecond)
	return tools.Result{Text: "waited"}, nil
}

// panicTool crashes.
type panicTool struct{}

func (panicTool) Spec() tools.Spec {
	return tools.Spec{Name: "crash_tool", Description: "Crashes.", Category: tools.CategoryRead, PlanSafe: true}
}

func (panicTool) Run(context.Context, *tools.Env, tools.Call) (tools.Result, error) {
	var items []string
	return tools.Result{Text: items[len(items)]}, nil // an index out of range: a real runtime panic
}

// A panic in a tool fails that call only: the task goes on (the model hears of the failure),
// and another task keeps streaming meanwhile.
func TestToolPanicFailsTheCallOnly(t *testing.T) {
	long := strings.Repeat("streaming text ", 300)
	r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: long + completion, ChunkSize: 8, Delay: llmtest.Duration(time.Millisecond)},
		{Text: "<crash_tool>\n</crash_tool>"},
		{Text: completion, Expect: &llmtest.Expect{LastUserContains: []string{"[crash_tool] Result:", "internal error"}}},
	}}, panicTool{})
	r.settings = func(s *config.Settings) { s.AutoApprove.YOLO = true }
	streaming := r.newTask("stream")
	waitFor(t, "the stream to start", func() bool {
		for _, m := range streaming.Messages() {
			if m.Kind == msg.SayText && m.Partial {
				return true
			}
		}
		return false
	})
	crashing := r.newTask("crash")
	waitAsk(t, crashing, msg.AskCompletionResult)
	crashed := false
	for _, m := range crashing.Messages() {
		crashed = crashed || m.Kind == msg.SayError && strings.Contains(m.Text, "internal error in crash_tool")
	}
	if !crashed {
		t.Fatal("the crash was not reported in the chat")
	}
	if streaming.State().Status != StatusRunning {
		t.Fatalf("the other task stopped streaming: %s", streaming.State().Status)
	}
	waitAsk(t, streaming, msg.AskCompletionResult)
	if err := r.llm.Err(); err != nil {
		t.Fatal(err)
	}
}

// A panic in the loop itself fails the task, not the process.
func TestLoopPanicFailsTheTask(t *testing.T) {
	r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{{Text: completion}, {Text: "<read_file>\n<path>x</path>\n</read_file>"}}})
	tk := r.newTask("x")
	waitAsk(t, tk, msg.AskCompletionResult)
	if err := tk.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitAsk(t, tk, msg.AskResumeTask)
	tk.deps.Registry = nil // the loop dereferences it: a bug in the loop (no run is running)
	if err := tk.Answer(-1, tools.Answer{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the task to fail", func() bool { return tk.State().Status == StatusFailed })
}

// failingJournal fails every write while full is set, like a full disk.
type failingJournal struct {
	journal
	full atomic.Bool
}

var errNoSpace = fmt.Errorf("write: %w", syscall.ENOSPC)

func (j *failingJournal) AppendMessage(m msg.Message, sync bool) error {
	if j.full.Load() {
		return errNoSpace
	}
	return j.journal.AppendMessage(m, sync)
}

func (j *failingJournal) AppendAPI(m llm.Message) error {
	if j.full.Load() {
		return errNoSpace
	}
	return j.journal.AppendAPI(m)
}

func (j *failingJournal) TruncateMessages(n int) error {
	if j.full.Load() {
		return errNoSpace
	}
	return j.journal.TruncateMessages(n)
}

func (j *failingJournal) TruncateAPI(n int) error {
	if j.full.Load() {
		return errNoSpace
	}
	return j.journal.TruncateAPI(n)
}

func (j *failingJournal) SaveMeta(m store.Meta) error {
	if j.full.Load() {
		return errNoSpace
	}
	return j.journal.SaveMeta(m)
}

// A full disk pauses the task with a clear error; nothing shown is lost, and once space is
// back the task is written in full and goes on.
func TestFullDiskPausesAndLosesNothing(t *testing.T) {
	read := "<ask_followup_question>\n<question>Shall I go on?</question>\n</ask_followup_question>"
	r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "First step.\n" + read},
		{Text: "Second step, written while the disk is full.\n" + read},
		{Text: "Third step.\n" + completion},
	}})
	tk := r.newTask("fill the disk")
	waitAsk(t, tk, msg.AskFollowup)
	fj := &failingJournal{}
	tk.conv.WrapJournal(func(j journal) journal {
		fj.journal = j
		return fj
	})
	fj.full.Store(true)
	// The answer is shown but cannot be saved: the task pauses at its next step.
	if err := tk.Answer(-1, tools.Answer{Text: "yes"}); err != nil {
		t.Fatal(err)
	}
	waitAsk(t, tk, msg.AskResumeTask)
	var shown []string
	for _, m := range tk.Messages() {
		shown = append(shown, string(m.Type)+":"+string(m.Kind)+":"+m.Text)
	}
	joined := strings.Join(shown, "\n")
	if !strings.Contains(joined, "could not save this task") || !strings.Contains(joined, "no space left on device") {
		t.Fatalf("no clear error:\n%s", joined)
	}
	// Still full: resuming shows the error again and stays paused.
	if err := tk.Answer(-1, tools.Answer{Approved: true}); err != nil {
		t.Fatal(err)
	}
	waitAsk(t, tk, msg.AskResumeTask)
	// Space is back: the task is saved in full and goes on.
	fj.full.Store(false)
	if err := tk.Answer(-1, tools.Answer{Approved: true}); err != nil {
		t.Fatal(err)
	}
	waitAsk(t, tk, msg.AskFollowup)
	if err := tk.Answer(-1, tools.Answer{Text: "yes again"}); err != nil {
		t.Fatal(err)
	}
	waitAsk(t, tk, msg.AskCompletionResult)
	want := tk.Messages()
	wantAPI := tk.API()
	id := tk.ID()
	r.mgr.Clear(context.Background(), id)
	loaded, err := r.st.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := loaded.Log.Close(); err != nil {
			t.Error(err)
		}
	})
	if len(loaded.Messages) != len(want) {
		t.Fatalf("saved %d messages, shown %d", len(loaded.Messages), len(want))
	}
	for i, m := range want {
		if got := loaded.Messages[i]; got.Kind != m.Kind || got.Text != m.Text {
			t.Fatalf("message %d saved as %s %q, shown as %s %q", i, got.Kind, got.Text, m.Kind, m.Text)
		}
	}
	if len(loaded.API) != len(wantAPI) {
		t.Fatalf("saved %d API messages, had %d", len(loaded.API), len(wantAPI))
	}
	third := false
	for _, m := range loaded.Messages {
		third = third || strings.Contains(m.Text, "Third step.")
	}
	if !third {
		t.Fatal("the reply after the repair was not saved")
	}
}
