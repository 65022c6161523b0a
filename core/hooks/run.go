package hooks

import (
	"bytes"
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/toolnames"
)

// The compaction strategies PreCompact names: the condense tool summarised the conversation,
// or the context window's projection cut its oldest turns.
const (
	CompactCondense = toolnames.Condense
	CompactTruncate = "truncate"
)

// DefaultTimeout bounds one hook's run when no other is configured.
const DefaultTimeout = 30 * time.Second

// maxContext caps what one hook may add to the next request.
const maxContext = 50 << 10

// maxOutput caps how much of a hook's stdout and stderr is read.
const maxOutput = 1 << 20

// blockedMD is what the model sees for a blocked tool call when the hook gave no message.
//
//go:embed blocked.md
var blockedMD string

// BlockedMessage is the tool result of a call a hook blocked without saying why.
func BlockedMessage() string { return strings.TrimSpace(blockedMD) }

// The event objects of the input JSON. Field names are Cline's.

// TaskMetadata identifies the task in the task events.
type TaskMetadata struct {
	TaskID           string `json:"taskId"`
	ULID             string `json:"ulid"`
	InitialTask      string `json:"initialTask,omitempty"`
	CompletionStatus string `json:"completionStatus,omitempty"`
}

// TaskData is the object of TaskStart, TaskCancel and TaskComplete.
type TaskData struct {
	TaskMetadata TaskMetadata `json:"taskMetadata"`
}

// PreviousState describes the task a TaskResume continues.
type PreviousState struct {
	LastMessageTs              string `json:"lastMessageTs"`
	MessageCount               string `json:"messageCount"`
	ConversationHistoryDeleted string `json:"conversationHistoryDeleted"`
}

// ResumeData is the object of TaskResume.
type ResumeData struct {
	TaskMetadata  TaskMetadata  `json:"taskMetadata"`
	PreviousState PreviousState `json:"previousState"`
}

// PromptData is the object of UserPromptSubmit.
type PromptData struct {
	Prompt      string   `json:"prompt"`
	Attachments []string `json:"attachments"`
}

// PreToolData is the object of PreToolUse.
type PreToolData struct {
	ToolName   string            `json:"toolName"`
	Parameters map[string]string `json:"parameters"`
}

// PostToolData is the object of PostToolUse.
type PostToolData struct {
	ToolName        string            `json:"toolName"`
	Parameters      map[string]string `json:"parameters"`
	Result          string            `json:"result"`
	Success         bool              `json:"success"`
	ExecutionTimeMs int64             `json:"executionTimeMs"`
}

// CompactData is the object of PreCompact.
type CompactData struct {
	ContextSize        int64  `json:"contextSize"`
	MessagesToCompact  int    `json:"messagesToCompact"`
	CompactionStrategy string `json:"compactionStrategy"` // CompactCondense or CompactTruncate
}

// Event is one point of a task's life, with its object (one of the *Data types above).
type Event struct {
	Kind Kind
	// TaskID names the task ("": the runner's Options.TaskID).
	TaskID string
	Data   any
}

// Note is something the chat should show about a hook: it failed or was skipped.
type Note struct {
	// Hook is the hook's name (Hook.Name).
	Hook string
	// Skipped is true for a hook that did not run (Text says why); false for one that failed.
	Skipped bool
	Text    string
}

// Result is what the hooks of one event said, combined as Cline combines them: any cancel
// cancels, context modifications are joined by blank lines, error messages by newlines.
type Result struct {
	Cancel              bool
	ContextModification string
	ErrorMessage        string
	// Notes are the hooks' failures and, once per runner, each skipped hook.
	Notes []Note
}

// output is a hook's answer on stdout.
type output struct {
	Cancel              bool   `json:"cancel"`
	ContextModification string `json:"contextModification"`
	ErrorMessage        string `json:"errorMessage"`
}

// Options configure a Runner.
type Options struct {
	Store *Store
	// Roots are the task's workspace roots; GlobalDir is the global hooks folder ("": none).
	Roots     []string
	GlobalDir string
	TaskID    string
	// Version is Cairn's version, sent as clineVersion (hooks written for Cline read it there).
	Version string
	// Timeout bounds each hook (0: DefaultTimeout).
	Timeout time.Duration
	// DropEnv names environment variables hooks must not see (API keys).
	DropEnv []string
	// Scrub, when set, also filters the environment hooks get (core/agent removes the
	// variables holding a configured secret's value).
	Scrub func(env []string) []string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Sandbox, when set, is what each hook's sandbox starts from (docs/sandbox.md): hooks
	// run in the Workspace tier with the network on, its Roots writable, a private temp
	// folder of the run's own. Nil runs hooks plainly: the user turned the sandbox off, or
	// none can be set up here (core/agent decides and says so in the log).
	Sandbox *sandbox.Base
}

// networkRule is why hooks may open network connections in the sandbox.
const networkRule = "hooks may use the network, as they always could"

// Runner runs one task's hooks. Fire is called from the task's goroutine; the runner is safe
// for concurrent use anyway.
type Runner struct {
	o Options

	// mu guards reported.
	mu       sync.Mutex
	reported map[string]string // hook path → the skip reason already shown

	// afterCheck, when set (tests only), is called once a hook's file was read and found
	// trusted, before anything runs: a test replaces the file there.
	afterCheck func(Hook)
}

// NewRunner returns a runner for one task.
func NewRunner(o Options) *Runner {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Runner{o: o, reported: map[string]string{}}
}

// Fire runs the hooks of ev one after the other and combines their answers. It never fails:
// a hook that cannot be found, read, trusted, started, finished in time or understood becomes
// a Note and the task goes on. Cancelling ctx kills the running hook and its children.
func (r *Runner) Fire(ctx context.Context, ev Event) Result {
	var res Result
	if r == nil || r.o.Store == nil {
		return res
	}
	all, err := Discover(r.o.Roots, r.o.GlobalDir)
	if err != nil {
		res.Notes = append(res.Notes, Note{Hook: string(ev.Kind), Text: "Cairn could not look for hooks: " + err.Error()})
	}
	var ctxMods, errMsgs []string
	for _, h := range all {
		if h.Kind != ev.Kind {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		v := r.o.Store.check(h)
		if !v.run {
			if v.reason != "" && r.firstSkip(h.Path, v.reason) {
				res.Notes = append(res.Notes, Note{Hook: h.Name, Skipped: true, Text: v.reason})
			}
			continue
		}
		if r.afterCheck != nil {
			r.afterCheck(h)
		}
		out, run := r.exec(ctx, h, v.content, ev)
		r.o.Store.recordRun(h.Path, run)
		if run.Error != "" {
			if ctx.Err() == nil {
				res.Notes = append(res.Notes, Note{Hook: h.Name, Text: run.Error})
			}
			continue
		}
		res.Cancel = res.Cancel || out.Cancel
		if m := strings.TrimSpace(out.ContextModification); m != "" {
			if len(m) > maxContext {
				m = strings.ToValidUTF8(m[:maxContext], "") + "\n[…]"
			}
			ctxMods = append(ctxMods, m)
		}
		if m := strings.TrimSpace(out.ErrorMessage); m != "" {
			errMsgs = append(errMsgs, m)
		}
	}
	res.ContextModification = strings.Join(ctxMods, "\n\n")
	res.ErrorMessage = strings.Join(errMsgs, "\n")
	return res
}

// firstSkip reports whether the skip of path for reason has not been reported yet.
func (r *Runner) firstSkip(path, reason string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reported[path] == reason {
		return false
	}
	r.reported[path] = reason
	return true
}

// Input returns the JSON a hook receives on stdin for ev.
func (r *Runner) Input(ev Event) ([]byte, error) {
	roots := append([]string{}, r.o.Roots...)
	in := map[string]any{
		"clineVersion":   r.o.Version,
		"hookName":       ev.Kind,
		"timestamp":      strconv.FormatInt(r.o.Now().UnixMilli(), 10),
		"taskId":         cmp.Or(ev.TaskID, r.o.TaskID),
		"workspaceRoots": roots,
		"userId":         "",
	}
	if ev.Data != nil {
		in[ev.Kind.field()] = ev.Data
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // hooks see "<" as "<", as the model wrote it
	if err := enc.Encode(in); err != nil {
		return nil, fmt.Errorf("hooks: encoding the %s input: %w", ev.Kind, err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// exec runs one hook and reads its answer. content is the hook's file as check read and
// trusted it: what runs is a private copy of those bytes, never the file at h.Path, which may
// have changed since. The working directory is the first workspace root (the hook's folder
// without one), as it always was; the copy is gone when exec returns.
func (r *Runner) exec(ctx context.Context, h Hook, content []byte, ev Event) (output, Run) {
	start := time.Now()
	run := Run{At: r.o.Now(), Event: ev.Kind, ExitCode: -1}
	input, err := r.Input(ev)
	if err != nil {
		run.Error = err.Error()
		return output{}, run
	}
	cp, err := privateCopy(h, content)
	if err != nil {
		run.Error = "could not be started: " + err.Error()
		return output{}, run
	}
	defer cp.remove(h)
	out, run := r.execCopy(ctx, h, cp, input, run, start)
	// Messages of exec and of shells name the file they ran; the user knows the hook's own.
	run.Error = strings.ReplaceAll(run.Error, cp.path, h.Path)
	return out, run
}

// execCopy runs the private copy cp with input on stdin and reads its answer.
func (r *Runner) execCopy(ctx context.Context, h Hook, cp *hookCopy, input []byte, run Run, start time.Time) (output, Run) {
	hctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	defer cancel()
	cmd := command(hctx, cp.path)
	cmd.Dir = filepath.Dir(h.Path)
	if len(r.o.Roots) > 0 {
		cmd.Dir = r.o.Roots[0]
	}
	base := env(append([]string{pathEnv}, r.o.DropEnv...))
	if r.o.Scrub != nil {
		base = r.o.Scrub(base)
	}
	cmd.Env = append(base, pathEnv+"="+h.Path)
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr capped
	stdout.max, stderr.max = maxOutput, 64<<10
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	group := inGroup(cmd)
	if err := r.confine(cmd, cp); err != nil {
		run.Error = "could not be started in the sandbox: " + err.Error()
		return output{}, run
	}
	// A child that left the group and holds the pipes open does not keep the task waiting.
	cmd.WaitDelay = time.Second
	err := cmd.Start()
	if err == nil {
		group.started()
		err = cmd.Wait()
	}
	group.release()
	run.Duration = time.Since(start)
	run.Stdout, run.Stderr = stdout.String(), stderr.String()
	if cmd.ProcessState != nil {
		run.ExitCode = cmd.ProcessState.ExitCode()
	}
	switch {
	case errors.Is(hctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		run.Error = fmt.Sprintf("timed out after %s and was stopped", r.o.Timeout)
		return output{}, run
	case ctx.Err() != nil:
		run.Error = "stopped: the task was cancelled"
		return output{}, run
	case err != nil:
		run.Error = "failed: " + err.Error() + tail(run.Stderr)
		return output{}, run
	}
	text := strings.TrimSpace(run.Stdout)
	if text == "" {
		return output{}, run // nothing to say: go on
	}
	var out output
	dec := json.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&out); err != nil || dec.More() {
		run.Error = "printed something that is not a JSON answer: " + head(text)
		return output{}, run
	}
	return out, run
}

// confine makes cmd, already in its process group, run in the sandbox when the runner has
// one: the task's roots writable, the protected paths in them read-only, the credential stores
// masked, the network on, and a temp folder inside the run's private folder (removed with
// it).
func (r *Runner) confine(cmd *exec.Cmd, cp *hookCopy) error {
	if r.o.Sandbox == nil {
		return nil
	}
	b := *r.o.Sandbox
	b.Temp = filepath.Join(cp.dir, "tmp")
	if err := os.Mkdir(b.Temp, 0o700); err != nil {
		return fmt.Errorf("hooks: the hook's temp folder: %w", err)
	}
	return sandbox.Apply(cmd, b.Policy(sandbox.Workspace, true, networkRule))
}

// env is the daemon's environment without the named variables.
func env(drop []string) []string {
	out := os.Environ()
	if len(drop) == 0 {
		return out
	}
	skip := map[string]bool{}
	for _, d := range drop {
		skip[d] = true
	}
	kept := out[:0]
	for _, kv := range out {
		k, _, _ := strings.Cut(kv, "=")
		if !skip[k] {
			kept = append(kept, kv)
		}
	}
	return kept
}

func head(s string) string {
	const n = 200
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return strings.ReplaceAll(s, "\n", " ")
}

func tail(stderr string) string {
	s := strings.TrimSpace(stderr)
	if s == "" {
		return ""
	}
	if len(s) > 300 {
		s = "…" + strings.ToValidUTF8(s[len(s)-300:], "")
	}
	return " (stderr: " + s + ")"
}

// capped keeps the first max bytes written to it and drops the rest.
type capped struct {
	max int
	b   bytes.Buffer
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.b.String() }

// procGroup is what holds a hook and the processes it starts together, so that cancelling the
// hook ends them all (inGroup, per platform). started is called once the hook's process
// exists, release once it was waited for.
type procGroup interface {
	started()
	release()
}
