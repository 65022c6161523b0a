package shell

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/host/direct"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

type sayRecord struct {
	kind    msg.Kind
	text    string
	payload msg.Payload
	partial bool
}

// fakeUI records what the tool shows and answers as the test says.
type fakeUI struct {
	approve tools.Answer
	// onAsk answers the command_output ask; nil leaves it open until ctx ends.
	onAsk func(ctx context.Context) (tools.Answer, error)

	// mu guards the records below.
	mu        sync.Mutex
	approvals []tools.Approval
	says      []sayRecord
	asks      int
}

func (u *fakeUI) Approve(_ context.Context, req tools.Approval) (tools.Answer, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.approvals = append(u.approvals, req)
	return u.approve, nil
}

func (u *fakeUI) Ask(ctx context.Context, kind msg.Kind, _ string, _ msg.Payload) (tools.Answer, error) {
	u.mu.Lock()
	u.asks++
	u.mu.Unlock()
	if kind != msg.AskCommandOutput {
		return tools.Answer{}, fmt.Errorf("unexpected ask %s", kind)
	}
	if u.onAsk != nil {
		return u.onAsk(ctx)
	}
	<-ctx.Done()
	return tools.Answer{}, ctx.Err()
}

func (u *fakeUI) Say(_ context.Context, kind msg.Kind, text string, payload msg.Payload, partial bool) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.says = append(u.says, sayRecord{kind, text, payload, partial})
}

type fakeFiles struct{ root string }

func (f fakeFiles) Root() string { return f.root }
func (f fakeFiles) Resolve(p string) (string, bool, error) {
	return filepath.Join(f.root, p), true, nil
}
func (f fakeFiles) Ignored(string) bool   { return false }
func (f fakeFiles) Rel(abs string) string { return abs }

type fakeHost struct{ term tools.Terminal }

func (h fakeHost) Diffs() tools.DiffPresenter { return nil }
func (h fakeHost) Terminal() tools.Terminal   { return h.term }
func (h fakeHost) Editor() tools.Editor       { return nil }

func newEnv(t *testing.T, ui *fakeUI) *tools.Env {
	term := direct.NewTerminal(posixShell(t))
	term.Grace = 200 * time.Millisecond
	return &tools.Env{Files: fakeFiles{root: t.TempDir()}, Host: fakeHost{term}, UI: ui, Mode: "act"}
}

func call(params ...string) tools.Call {
	c := tools.Call{Name: Name, Params: map[string]string{}}
	for i := 0; i+1 < len(params); i += 2 {
		c.Params[params[i]] = params[i+1]
	}
	return c
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestRunResults(t *testing.T) {
	cases := []struct {
		name, command string
		want          string
	}{
		{"output, stderr, last line without newline, exit code",
			`echo out; echo err >&2; printf last; exit 4`,
			"Command executed.\nExit code: 4\nOutput:\nout\nerr\nlast"},
		{"no output", "true", "Command executed.\nExit code: 0\nThe command printed nothing."},
		{"escapes stripped", `printf '\033[1;31mred\033[0m\r\n'`, "Command executed.\nExit code: 0\nOutput:\nred"},
		{"runs in the workspace root", "ls", "Command executed.\nExit code: 0\nOutput:\nmarker.txt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ui := &fakeUI{approve: tools.Answer{Approved: true}}
			env := newEnv(t, ui)
			if err := os.WriteFile(filepath.Join(env.Files.Root(), "marker.txt"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			reg := NewRegistry()
			res, err := New(reg).Run(testCtx(t), env, call("command", c.command, "requires_approval", "false"))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Text != c.want || res.IsError || res.Rejected {
				t.Errorf("result = %+v\nwant text %q", res, c.want)
			}
			if len(reg.items) != 0 {
				t.Errorf("registry keeps %d finished commands", len(reg.items))
			}
			checkSays(t, ui)
		})
	}
}

// checkSays verifies the chat row grew in order — each say's text is the whole output so far,
// extending the previous one (the loop sends clients only the appended part) — and ended with
// a final say carrying the exit code.
func checkSays(t *testing.T, ui *fakeUI) {
	t.Helper()
	if len(ui.says) == 0 {
		t.Fatal("no command_output say")
	}
	prev := ""
	for i, s := range ui.says {
		if s.kind != msg.SayCommandOutput || s.partial != (i < len(ui.says)-1) {
			t.Errorf("say %d: kind %s partial %v", i, s.kind, s.partial)
		}
		// The row grows in place until the view starts leaving lines out; then each say
		// replaces it, and it never outgrows the cap.
		if !strings.HasPrefix(s.text, prev) && !strings.Contains(s.text, " omitted") {
			t.Errorf("say %d neither extends the previous text nor elides (%d → %d bytes)", i, len(prev), len(s.text))
		}
		if len(s.text) > DefaultByteLimit+1000 {
			t.Errorf("say %d has %d bytes", i, len(s.text))
		}
		prev = s.text
	}
	last := ui.says[len(ui.says)-1].payload.(*msg.CommandOutput)
	if last.Output != prev || last.ExitCode == nil || last.Running {
		t.Errorf("final payload exit=%v running=%v, output %d bytes; the row text has %d bytes", last.ExitCode, last.Running, len(last.Output), len(prev))
	}
}

func TestApprovalRequest(t *testing.T) {
	ui := &fakeUI{approve: tools.Answer{Approved: true, Text: "go ahead"}}
	res, err := New(NewRegistry()).Run(testCtx(t), newEnv(t, ui), call("command", " echo hi ", "requires_approval", "TRUE"))
	if err != nil {
		t.Fatal(err)
	}
	want := tools.Approval{
		Ask: msg.AskCommand, Category: tools.CategoryCommand, Command: "echo hi", RequiresApproval: true,
		Payload: &msg.Command{Command: "echo hi", RequiresApproval: true},
	}
	if len(ui.approvals) != 1 || !reflect.DeepEqual(ui.approvals[0], want) {
		t.Errorf("approvals = %+v, want %+v", ui.approvals, want)
	}
	if res.UserFeedback != "go ahead" {
		t.Errorf("UserFeedback = %q, want the approval's text", res.UserFeedback)
	}
}

func TestDeniedCommandDoesNotRun(t *testing.T) {
	ui := &fakeUI{approve: tools.Answer{Approved: false, Text: "not now"}}
	env := newEnv(t, ui)
	res, err := New(NewRegistry()).Run(testCtx(t), env, call("command", "touch ran", "requires_approval", "true"))
	if err != nil {
		t.Fatal(err)
	}
	want := tools.Result{Rejected: true, Text: "The user denied this operation.", UserFeedback: "not now"}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("result = %+v, want %+v", res, want)
	}
	if _, err := os.Stat(filepath.Join(env.Files.Root(), "ran")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the command ran: stat = %v", err)
	}
}

func TestBadParams(t *testing.T) {
	cases := []struct {
		name string
		call tools.Call
		want string // substring of the error text
	}{
		{"no command", call("requires_approval", "false"), "Missing value for required parameter 'command'"},
		{"blank command", call("command", "  ", "requires_approval", "false"), "Missing value for required parameter 'command'"},
		{"no requires_approval", call("command", "ls"), "Missing value for required parameter 'requires_approval'"},
		{"bad requires_approval", call("command", "ls", "requires_approval", "maybe"), `not "maybe"`},
		{"bad timeout", call("command", "ls", "requires_approval", "false", "timeout", "soon"), `not "soon"`},
		{"negative timeout", call("command", "ls", "requires_approval", "false", "timeout", "-3"), `not "-3"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ui := &fakeUI{approve: tools.Answer{Approved: true}}
			res, err := New(NewRegistry()).Run(testCtx(t), newEnv(t, ui), c.call)
			if err != nil || !res.IsError || !strings.Contains(res.Text, c.want) {
				t.Errorf("Run = %+v, %v; want an error result containing %q", res, err, c.want)
			}
			if len(ui.approvals) != 0 {
				t.Error("asked for approval of an invalid call")
			}
		})
	}
}

func TestBigOutputKeepsHeadAndTail(t *testing.T) {
	ui := &fakeUI{approve: tools.Answer{Approved: true}}
	res, err := New(NewRegistry()).Run(testCtx(t), newEnv(t, ui), call("command", "seq 1 100000", "requires_approval", "false"))
	if err != nil {
		t.Fatal(err)
	}
	// Without a scratch folder nothing is saved, and the note says only what was cut.
	want := "Command executed.\nExit code: 0\nOutput:\n" + numbered(250) +
		"\n[... 99500 lines (572.8 KB) omitted ...]\n" + strings.TrimPrefix(numbered(100000), numbered(99750)+"\n")
	if res.Text != want {
		t.Errorf("result has %d lines, starts %q, ends %q", strings.Count(res.Text, "\n"), res.Text[:60], res.Text[len(res.Text)-60:])
	}
	checkSays(t, ui)
	if got := ui.says[len(ui.says)-1].payload.(*msg.CommandOutput).Output; got != strings.TrimPrefix(want, "Command executed.\nExit code: 0\nOutput:\n")+"\n" {
		t.Errorf("the chat's final row (%d bytes) is not the model's view", len(got))
	}
}

// Output past the caps is saved whole in the scratch folder, the model is told where, and
// neither the rows nor the result grow with it.
func TestHugeOutputIsSavedWhole(t *testing.T) {
	cases := []struct {
		name, command string
		want          func() string // the whole output
	}{
		{"many lines", "seq 1 6500000", func() string { return numbered(6500000) + "\n" }},
		{"one long line", "head -c 3000000 /dev/zero | tr '\\0' a", func() string { return strings.Repeat("a", 3000000) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ui := &fakeUI{approve: tools.Answer{Approved: true}}
			env := newEnv(t, ui)
			env.Scratch = filepath.Join(t.TempDir(), "output")
			res, err := New(NewRegistry()).Run(testCtx(t), env, call("command", c.command, "requires_approval", "false"))
			if err != nil {
				t.Fatal(err)
			}
			checkSays(t, ui)
			if len(res.Text) > DefaultByteLimit+1000 {
				t.Errorf("result has %d bytes", len(res.Text))
			}
			files, err := filepath.Glob(filepath.Join(env.Scratch, "command-*.log"))
			if err != nil || len(files) != 1 {
				t.Fatalf("saved files %v, %v", files, err)
			}
			if !strings.Contains(res.Text, "The whole output is saved in "+files[0]+":") {
				t.Errorf("the result does not name %s:\n%.400s", files[0], res.Text)
			}
			got, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if want := c.want(); string(got) != want {
				t.Errorf("saved %d bytes, want %d", len(got), len(want))
			}
		})
	}
}

// Small output is not saved anywhere.
func TestSmallOutputIsNotSaved(t *testing.T) {
	ui := &fakeUI{approve: tools.Answer{Approved: true}}
	env := newEnv(t, ui)
	env.Scratch = filepath.Join(t.TempDir(), "output")
	if _, err := New(NewRegistry()).Run(testCtx(t), env, call("command", "seq 1 100", "requires_approval", "false")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(env.Scratch); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("scratch folder: %v, want it never made", err)
	}
}

func TestTimeoutStopsCommand(t *testing.T) {
	ui := &fakeUI{approve: tools.Answer{Approved: true}}
	res, err := New(NewRegistry()).Run(testCtx(t), newEnv(t, ui), call("command", "echo started; sleep 100", "requires_approval", "false", "timeout", "1"))
	if err != nil {
		t.Fatal(err)
	}
	want := "The command was still running after 1 seconds, so it was stopped (exit code 143).\nOutput before it was stopped:\nstarted"
	if res.Text != want {
		t.Errorf("result = %q, want %q", res.Text, want)
	}
}

// childPID returns the PID a command printed as its first output line.
func childPID(t *testing.T, ui *fakeUI) int {
	t.Helper()
	ui.mu.Lock()
	defer ui.mu.Unlock()
	for _, s := range ui.says {
		co, ok := s.payload.(*msg.CommandOutput)
		if !ok {
			continue
		}
		line, _, _ := strings.Cut(co.Output, "\n")
		if pid, err := strconv.Atoi(strings.TrimSpace(line)); err == nil {
			return pid
		}
	}
	t.Fatal("no PID in the output")
	return 0
}

func TestCancelKillsProcessGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(testCtx(t))
	ui := &fakeUI{approve: tools.Answer{Approved: true}}
	// The ask opens once output appeared: the moment to cancel the task.
	ui.onAsk = func(askCtx context.Context) (tools.Answer, error) {
		cancel()
		<-askCtx.Done()
		return tools.Answer{}, askCtx.Err()
	}
	_, err := New(NewRegistry()).Run(ctx, newEnv(t, ui), call("command", "sleep 100 & echo $!; wait", "requires_approval", "false"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run error = %v, want context.Canceled", err)
	}
	waitGone(t, childPID(t, ui))
}

func TestUserStopsCommand(t *testing.T) {
	ui := &fakeUI{approve: tools.Answer{Approved: true}}
	ui.onAsk = func(context.Context) (tools.Answer, error) { return tools.Answer{Approved: false}, nil }
	res, err := New(NewRegistry()).Run(testCtx(t), newEnv(t, ui), call("command", "sleep 100 & echo $!; wait", "requires_approval", "false"))
	if err != nil {
		t.Fatal(err)
	}
	pid := childPID(t, ui)
	want := fmt.Sprintf("The user stopped the command while it was running (exit code 143).\nOutput before it was stopped:\n%d", pid)
	if res.Text != want {
		t.Errorf("result = %q, want %q", res.Text, want)
	}
	waitGone(t, pid)
}

func TestProceedWhileRunning(t *testing.T) {
	for _, feedback := range []string{"", "keep going, check the logs later"} {
		t.Run(fmt.Sprintf("feedback=%q", feedback), func(t *testing.T) {
			ui := &fakeUI{approve: tools.Answer{Approved: true}}
			ui.onAsk = func(context.Context) (tools.Answer, error) {
				return tools.Answer{Approved: feedback == "", Text: feedback}, nil
			}
			env := newEnv(t, ui)
			reg := NewRegistry()
			// The command waits for a file the test creates once the tool has returned.
			command := `echo start; while [ ! -f go ]; do sleep 0.02; done; echo done`
			res, err := New(reg).Run(testCtx(t), env, call("command", command, "requires_approval", "false"))
			if err != nil {
				t.Fatal(err)
			}
			want := "The user let you continue while the command runs. It is still running in the background as\ncommand 1.\n" +
				"Output so far:\nstart\n\n" +
				"Its further output, and the fact that it finished, will appear in the environment details of\nlater messages. " +
				"Read its output with read_command_output (id 1) and end it with\nstop_command (id 1) when you no longer need it; it is stopped when the task ends."
			if res.Text != want || res.UserFeedback != feedback {
				t.Fatalf("result = %+v\nwant text %q, feedback %q", res, want, feedback)
			}
			row := ui.says[len(ui.says)-2]
			if p := row.payload.(*msg.CommandOutput); row.partial || !p.Running || p.Output != "start\n" || p.ID != 1 {
				t.Errorf("output say = %+v %+v; want a final row of command 1, still running", row, p)
			}
			if last := ui.says[len(ui.says)-1]; last.kind != msg.SayInfo || last.text != "Command 1 runs on in the background: "+command {
				t.Errorf("last say = %+v; want the note that command 1 runs on", last)
			}
			if !reg.Busy() {
				t.Fatal("registry not busy while the command runs")
			}
			if running, finished := reg.Snapshot(); len(running) != 1 || !reflect.DeepEqual(running[0], TerminalState{ID: 1, Command: command, Started: running[0].Started}) || finished != nil {
				t.Errorf("Snapshot while running = %+v, %+v; want the command with no new output", running, finished)
			}
			if err := os.WriteFile(filepath.Join(env.Files.Root(), "go"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			<-reg.items[0].Done()
			running, finished := reg.Snapshot()
			if running != nil || len(finished) != 1 || !reflect.DeepEqual(finished[0], TerminalState{ID: 1, Command: command, NewOutput: "done\n"}) {
				t.Errorf("Snapshot after exit = %+v, %+v; want the command with \"done\\n\"", running, finished)
			}
			if running, finished := reg.Snapshot(); running != nil || finished != nil {
				t.Errorf("second Snapshot = %+v, %+v; want nothing", running, finished)
			}
		})
	}
}

func TestSpec(t *testing.T) {
	s := New(NewRegistry()).Spec()
	if s.Name != "execute_command" || s.Category != tools.CategoryCommand || s.PlanSafe || s.ArgParam != "command" {
		t.Errorf("spec = %+v", s)
	}
	want := []string{"command", "requires_approval", "timeout", "background", tools.TaskProgressParam}
	if got := s.ParamNames(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("params = %v, want %v", got, want)
	}
	for _, text := range []string{s.Description, s.Params[0].Description, s.Params[1].Description, s.Params[2].Description, s.Params[3].Description} {
		if text == "" || strings.Contains(text, "internal error") {
			t.Errorf("bad model-facing text %q", text)
		}
	}
	if !s.Params[0].Required || !s.Params[1].Required || s.Params[2].Required || s.Params[3].Required {
		t.Errorf("required flags = %v %v %v", s.Params[0].Required, s.Params[1].Required, s.Params[2].Required)
	}
}
