package shell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/cairnhq/cairn/core/tools"
)

// quietPeriod is how long a running command must stay silent to count as settled for
// WaitIdle: long enough to let a burst of output finish, short enough not to slow every turn.
const quietPeriod = 300 * time.Millisecond

// maxPending caps output nobody has read yet (a dev server logging while the model thinks).
// The oldest lines go first: the latest output says most about the command's state.
const maxPending = 1 << 20

// MaxBackground is how many commands started with background may run at once in one task
// (README "Commands that keep running"); a foreground command that reaches the wait limit
// moves to the background whatever the count.
const MaxBackground = 4

// TerminalState is one command as environment details show it (docs/prompt.md,
// "Environment details").
type TerminalState struct {
	// ID is the command's number in the task (1, 2, … in start order).
	ID      int
	Command string
	// Started is when the command started (running commands only; zero for finished ones).
	Started time.Time
	// Ports are the TCP ports its process group listens on, where the platform tells.
	Ports []int
	// NewOutput is the cleaned output not reported before.
	NewOutput string
}

// Registry remembers the commands started in a task, so output that arrives after
// execute_command returned ("proceed while running") reaches the model through environment
// details. Every byte of output is handed out once: to the tool while it follows the command,
// afterwards to Snapshot.
type Registry struct {
	// mu guards the fields below.
	mu    sync.Mutex
	items []*Tracked
	// all holds every command of the task by id (all[id-1]), finished ones too, so
	// read_command_output and stop_command find them.
	all []*Tracked
	// ended lists detached commands that ended since the last call of Ended.
	ended []Stopped
	// wait is the wait limit of foreground commands (SetWait).
	wait time.Duration
	// sandbox is how commands are confined (SetSandbox); temp is the registry's own temp
	// folder when the task has no scratch folder; ignoredList, taken at ignoredAt, lists the
	// files the ignore file hides.
	sandbox     SandboxConfig
	temp        string
	ignoredList []string
	ignoredAt   time.Time
}

// DefaultWait is the wait limit of a registry nobody set one for: commandWaitSeconds' default
// (docs/settings.md).
const DefaultWait = 60 * time.Second

// SetWait sets how long execute_command follows a foreground command before it moves it to
// the background (the commandWaitSeconds setting); <= 0 waits for ever.
func (r *Registry) SetWait(d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.wait = d
}

// Wait returns the wait limit (SetWait).
func (r *Registry) Wait() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.wait
}

func (r *Registry) noteEnded(s Stopped) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = append(r.ended, s)
}

// Stop stops t (Tracked.Stop) for someone who reports it themselves (the chat's Stop
// button): Ended does not list it again.
func (r *Registry) Stop(ctx context.Context, t *Tracked) (int, error) {
	code, err := t.Stop(ctx)
	r.reported(t.ID())
	return code, err
}

// reported drops id from the ended list: its end was reported already (stop_command).
func (r *Registry) reported(id int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = slices.DeleteFunc(r.ended, func(e Stopped) bool { return e.ID == id })
}

// Ended returns the commands the task had left running that ended since the last call
// (by themselves, or stopped by stop_command or StopAll), so the chat can say so.
func (r *Registry) Ended() []Stopped {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.ended
	r.ended = nil
	return out
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{wait: DefaultWait} }

// Track starts collecting p's output and registers it under cmd. The registry reads
// p.Output() from now on; callers read through the returned Tracked.
func (r *Registry) Track(cmd string, p tools.Process) *Tracked {
	return r.track(cmd, p, Limits{}, false)
}

// track is Track with the view's caps and the folder for the whole output; background marks
// a command started with background (MaxBackground counts it).
func (r *Registry) track(cmd string, p tools.Process, lim Limits, background bool) *Tracked {
	t := &Tracked{
		reg:                 r,
		startedInBackground: background,
		command:             cmd,
		started:             time.Now(),
		proc:                p,
		last:                time.Now(),
		changed:             make(chan struct{}),
		done:                make(chan struct{}),
		code:                -1,
		view:                newView(lim.Lines, lim.Bytes),
		full:                fullOutput{dir: lim.Dir},
	}
	if g, ok := p.(tools.GroupProcess); ok {
		t.group = g.Group()
	}
	r.mu.Lock()
	r.items = append(r.items, t)
	r.all = append(r.all, t)
	t.id = len(r.all)
	r.mu.Unlock()
	go t.pump()
	return t
}

// Snapshot returns running commands (with any new output) and finished commands that have
// output not reported yet, and marks that output reported. Finished commands leave the
// registry once everything they printed was reported.
func (r *Registry) Snapshot() (running, finished []TerminalState) {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.items[:0]
	for _, t := range r.items {
		text, done := t.Take()
		st := TerminalState{ID: t.id, Command: t.command, NewOutput: text}
		switch {
		case !done || t.keptLeftovers() && t.leftRunning():
			st.Started = t.started
			st.Ports = t.Ports()
			running = append(running, st)
			kept = append(kept, t)
		case text != "" || t.keptLeftovers():
			finished = append(finished, st) // leftovers that ended are said to have, too
		}
	}
	clear(r.items[len(kept):])
	r.items = kept
	return running, finished
}

// Busy reports whether any tracked command is still running.
func (r *Registry) Busy() bool {
	_, busy := r.lastActivity()
	return busy
}

// WaitIdle returns once no running command printed anything for quietPeriod, after limit,
// or when ctx ends, whichever is first. Environment details call it so a build that is still
// printing gets a moment to finish before the model looks at it.
func (r *Registry) WaitIdle(ctx context.Context, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for {
		last, busy := r.lastActivity()
		if !busy {
			return
		}
		now := time.Now()
		wake := last.Add(quietPeriod)
		if !now.Before(wake) || !now.Before(deadline) {
			return
		}
		if deadline.Before(wake) {
			wake = deadline
		}
		timer := time.NewTimer(wake.Sub(now))
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
	}
}

// KillAll stops every running command, for when the task ends.
func (r *Registry) KillAll() error {
	_, err := r.StopAll(context.Background())
	return err
}

// Stopped is a command StopAll ended.
type Stopped struct {
	ID      int
	Command string
	Code    int
	// Released: the command runs in the editor's terminal and was left to the user
	// (tools.Releaser) rather than stopped.
	Released bool
}

// StopAll stops every running command and its process group, waiting (until ctx ends, and
// at most the group's grace period and a little more) for each to be gone. It returns the
// commands it stopped, in start order; a command that survives the wait is still listed,
// with the error.
func (r *Registry) StopAll(ctx context.Context) ([]Stopped, error) {
	r.mu.Lock()
	items := append([]*Tracked(nil), r.all...)
	r.mu.Unlock()
	var (
		out  []Stopped
		errs []error
	)
	for _, t := range items {
		if !t.alive() {
			continue
		}
		if rel, ok := t.proc.(tools.Releaser); ok {
			released, err := rel.Release()
			if err != nil {
				errs = append(errs, fmt.Errorf("shell: release %q: %w", t.command, err))
			}
			if released {
				out = append(out, Stopped{ID: t.id, Command: t.command, Code: -1, Released: true})
				continue
			}
		}
		code, err := t.Stop(ctx)
		if err != nil {
			errs = append(errs, err)
		}
		out = append(out, Stopped{ID: t.id, Command: t.command, Code: code})
	}
	// The caller reports these; Ended need not report them again.
	r.mu.Lock()
	r.ended = slices.DeleteFunc(r.ended, func(e Stopped) bool {
		return slices.ContainsFunc(out, func(s Stopped) bool { return s.ID == e.ID })
	})
	temp := r.temp
	r.temp = ""
	r.mu.Unlock()
	if temp != "" {
		if err := os.RemoveAll(temp); err != nil {
			errs = append(errs, fmt.Errorf("shell: remove the commands' temp folder: %w", err))
		}
	}
	return out, errors.Join(errs...)
}

// Get returns the command with id, or nil.
func (r *Registry) Get(id int) *Tracked {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id < 1 || id > len(r.all) {
		return nil
	}
	return r.all[id-1]
}

// BackgroundFull reports whether MaxBackground commands started with background still run.
func (r *Registry) BackgroundFull() bool {
	r.mu.Lock()
	items := append([]*Tracked(nil), r.all...)
	r.mu.Unlock()
	n := 0
	for _, t := range items {
		if t.startedInBackground && !t.Finished() {
			n++
		}
	}
	return n >= MaxBackground
}

// forget drops t, whose output the tool reported in full.
func (r *Registry) forget(t *Tracked) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, it := range r.items {
		if it == t {
			r.items = append(r.items[:i], r.items[i+1:]...)
			return
		}
	}
}

// lastActivity returns the latest output time (or start time) over running commands.
func (r *Registry) lastActivity() (last time.Time, busy bool) {
	r.mu.Lock()
	items := append([]*Tracked(nil), r.items...)
	r.mu.Unlock()
	for _, t := range items {
		if at, running := t.activity(); running {
			busy = true
			if at.After(last) {
				last = at
			}
		}
	}
	return last, busy
}

// Tracked is one command whose output is being collected.
type Tracked struct {
	id      int // set once by track, under the registry's lock, before anyone else sees t
	reg     *Registry
	command string
	started time.Time
	proc    tools.Process
	// group is the command's process group id, 0 when the host does not tell.
	group int
	// startedInBackground is set for a command started with background (MaxBackground
	// counts these), before the tool returns.
	startedInBackground bool
	// done is closed once the process exited and all its output is in pending.
	done chan struct{}

	// mu guards the fields below.
	mu      sync.Mutex
	pending []byte // cleaned output not yet taken
	dropped int    // lines cut from pending by the maxPending cap
	last    time.Time
	// changed is closed (and replaced) whenever pending grows or the command finishes.
	changed  chan struct{}
	finished bool
	// detached is set once the task went on while the command runs (background, the wait
	// limit, "proceed while running"): its end is then reported to the registry's Ended.
	detached bool
	// leftovers is set when the command's shell ended while processes it started (`server
	// &`, nohup, setsid) still ran (leftRunning): they run on as this command, in the
	// background.
	leftovers bool
	code      int
	// view is the bounded picture of everything printed since the start; full keeps all of
	// it once view has to leave something out.
	view *view
	full fullOutput
}

// Command returns the command line.
func (t *Tracked) Command() string { return t.command }

// ID returns the command's number in its task (1, 2, … in start order).
func (t *Tracked) ID() int { return t.id }

// Take returns the output not taken before and marks it taken. done reports that the command
// finished and this was the last of its output.
func (t *Tracked) Take() (text string, done bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	text = string(t.pending)
	if t.dropped > 0 {
		text = fmt.Sprintf(omittedNote, t.dropped) + "\n" + text
		t.dropped = 0
	}
	t.pending = t.pending[:0]
	return text, t.finished
}

// Changed returns a channel closed when new output arrives or the command finishes after
// the call. Notifications coalesce (several chunks may close one channel) but output never
// drops: Take returns everything since the last Take.
func (t *Tracked) Changed() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}

// Done is closed once the command exited and all its output was collected.
func (t *Tracked) Done() <-chan struct{} { return t.done }

// Finished reports whether Done is closed.
func (t *Tracked) Finished() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.finished
}

// ExitCode returns the exit code once finished (-1 before, or when unknown).
func (t *Tracked) ExitCode() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.code
}

// View returns the bounded picture of all output so far: its first and last lines, with a
// note in between counting what was left out and naming the file that holds all of it.
func (t *Tracked) View() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.view.render(t.omitted)
}

// Size returns how many bytes of output arrived so far.
func (t *Tracked) Size() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.view.total
}

// omitted renders the note standing for the cut part of the view. t.mu is held.
func (t *Tracked) omitted(lines int, size int64) string {
	d := omittedData{Lines: lines, From: t.view.headNL + 1, Size: humanSize(size), Path: t.full.path}
	if t.full.err != nil {
		d.Failed = t.full.err.Error()
	}
	return render("omitted", d)
}

// Kill stops the command's process group.
func (t *Tracked) Kill() error {
	if err := t.proc.Kill(); err != nil {
		return fmt.Errorf("shell: stop %q: %w", t.command, err)
	}
	return nil
}

func (t *Tracked) activity() (time.Time, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last, !t.finished
}

// pump reads the process's output until it ends, then collects the exit code.
func (t *Tracked) pump() {
	var c cleaner
	buf := make([]byte, 32*1024)
	r := t.proc.Output()
	for {
		n, err := r.Read(buf)
		if n > 0 {
			t.add(c.write(buf[:n]))
		}
		if err != nil {
			// io.EOF, or a host stream that broke: no more output will come either way.
			break
		}
	}
	t.add(c.flush())
	t.mu.Lock()
	t.full.close()
	t.mu.Unlock()
	// The output has ended, so the exit is imminent; nothing can cancel this goroutine's work
	// and the process contract bounds the wait.
	code, err := t.proc.Wait(context.Background())
	if err != nil {
		code = -1
	}
	t.mu.Lock()
	t.finished = true
	t.code = code
	detached := t.detached
	close(t.changed)
	t.changed = make(chan struct{})
	t.mu.Unlock()
	// Noted before done closes, so a Stop that returned finds it in the list.
	if detached && t.reg != nil {
		t.reg.noteEnded(Stopped{ID: t.id, Command: t.command, Code: code})
	}
	close(t.done)
}

// keepLeftovers marks a command whose shell ended as running on in what it left running.
func (t *Tracked) keepLeftovers() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.leftovers, t.detached = true, true
}

func (t *Tracked) keptLeftovers() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.leftovers
}

// detach marks the command as running on without the tool; it reports whether it still ran.
func (t *Tracked) detach() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.detached = true
	return !t.finished
}

func (t *Tracked) add(s string) {
	if s == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.view.write([]byte(s))
	t.full.write([]byte(s), t.view.elided())
	t.pending = append(t.pending, s...)
	if over := len(t.pending) - maxPending; over > 0 {
		cut := over
		if nl := bytes.IndexByte(t.pending[over:], '\n'); nl >= 0 {
			cut = over + nl + 1
		}
		t.dropped += bytes.Count(t.pending[:cut], []byte{'\n'})
		// Slicing keeps the cut bytes allocated only until append next grows the buffer, so
		// memory stays within about twice the cap without copying a megabyte per chunk.
		t.pending = t.pending[cut:]
	}
	t.last = time.Now()
	close(t.changed)
	t.changed = make(chan struct{})
}
