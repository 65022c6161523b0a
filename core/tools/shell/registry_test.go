package shell

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeProc is a process whose output and exit the test controls.
type fakeProc struct {
	r      *io.PipeReader
	w      *io.PipeWriter
	exited chan struct{}
	code   int
	kills  atomic.Int32
	// killEnds makes Kill end the process with code 143, as SIGTERM would.
	killEnds bool
	end      sync.Once
}

func newFakeProc() *fakeProc {
	r, w := io.Pipe()
	return &fakeProc{r: r, w: w, exited: make(chan struct{})}
}

func (p *fakeProc) Output() io.Reader { return p.r }

func (p *fakeProc) Wait(ctx context.Context) (int, error) {
	select {
	case <-p.exited:
		return p.code, nil
	case <-ctx.Done():
		return -1, ctx.Err()
	}
}

func (p *fakeProc) Kill() error {
	p.kills.Add(1)
	if p.killEnds {
		p.end.Do(func() {
			p.code = 143
			_ = p.w.Close()
			close(p.exited)
		})
	}
	return nil
}

// emit writes s and waits until the registry has taken it in.
func emit(t *testing.T, tr *Tracked, p *fakeProc, s string) {
	t.Helper()
	ch := tr.Changed()
	if _, err := p.w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	<-ch
}

func exit(tr *Tracked, p *fakeProc, code int) {
	p.code = code
	_ = p.w.Close()
	close(p.exited)
	<-tr.Done()
}

func TestSnapshotReportsOutputOnce(t *testing.T) {
	reg := NewRegistry()
	p := newFakeProc()
	tr := reg.Track("npm run dev", p)

	type snap struct{ running, finished []TerminalState }
	state := func(out string) []TerminalState {
		return []TerminalState{{ID: 1, Command: "npm run dev", Started: tr.started, NewOutput: out}}
	}
	ended := func(out string) []TerminalState {
		return []TerminalState{{ID: 1, Command: "npm run dev", NewOutput: out}}
	}
	steps := []struct {
		name string
		act  func()
		want snap
	}{
		{"first output", func() { emit(t, tr, p, "ready on :3000\n") }, snap{running: state("ready on :3000\n")}},
		{"nothing new", func() {}, snap{running: state("")}},
		{"partial line and escapes", func() { emit(t, tr, p, "\x1b[32mGET /\x1b[0m 200") }, snap{running: state("GET / 200")}},
		{"exit with last output", func() { emit(t, tr, p, "\r\nbye\r\n"); exit(tr, p, 0) }, snap{finished: ended("\nbye\n")}},
		{"finished and reported", func() {}, snap{}},
	}
	for _, s := range steps {
		s.act()
		running, finished := reg.Snapshot()
		if got := (snap{running, finished}); !reflect.DeepEqual(got, s.want) {
			t.Fatalf("%s: Snapshot = %+v, want %+v", s.name, got, s.want)
		}
	}
	if reg.Busy() || len(reg.items) != 0 {
		t.Errorf("after exit: Busy = %v, %d items; want idle and empty", reg.Busy(), len(reg.items))
	}
	if tr.ExitCode() != 0 {
		t.Errorf("ExitCode = %d", tr.ExitCode())
	}
}

func TestFinishedWithoutNewOutputIsDropped(t *testing.T) {
	reg := NewRegistry()
	p := newFakeProc()
	tr := reg.Track("make", p)
	emit(t, tr, p, "done\n")
	if text, _ := tr.Take(); text != "done\n" { // the tool read it
		t.Fatalf("Take = %q", text)
	}
	exit(tr, p, 2)
	if running, finished := reg.Snapshot(); running != nil || finished != nil {
		t.Errorf("Snapshot = %v, %v; want nothing to report", running, finished)
	}
	if tr.ExitCode() != 2 {
		t.Errorf("ExitCode = %d, want 2", tr.ExitCode())
	}
}

func TestPendingOutputIsCapped(t *testing.T) {
	reg := NewRegistry()
	p := newFakeProc()
	tr := reg.Track("yes", p)
	var b strings.Builder
	for i := range 100000 {
		fmt.Fprintf(&b, "line %06d\n", i) // 12 bytes a line, 1.2 MB in all
	}
	go func() { _, _ = p.w.Write([]byte(b.String())); exit(tr, p, 0) }()
	<-tr.Done()
	text, done := tr.Take()
	if !done {
		t.Fatal("Take: not done after exit")
	}
	first, rest, _ := strings.Cut(text, "\n")
	var dropped int
	if _, err := fmt.Sscanf(first, omittedNote, &dropped); err != nil {
		t.Fatalf("first line %q is not the omitted note: %v", first, err)
	}
	if len(rest) > maxPending || !strings.HasSuffix(rest, "line 099999\n") || !strings.HasPrefix(rest, fmt.Sprintf("line %06d\n", dropped)) {
		t.Errorf("kept %d bytes from %q to %q after dropping %d lines", len(rest), rest[:12], rest[len(rest)-12:], dropped)
	}
}

// WaitIdle must come back both for a silent running command and for cancellation; there is
// no assertion on how long it took.
func TestWaitIdleReturns(t *testing.T) {
	reg := NewRegistry()
	reg.WaitIdle(context.Background(), time.Hour) // nothing running
	p := newFakeProc()
	p.killEnds = true
	tr := reg.Track("sleep", p)
	if !reg.Busy() {
		t.Fatal("Busy = false with a running command")
	}
	reg.WaitIdle(context.Background(), time.Hour) // silent: settles after quietPeriod
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	reg.WaitIdle(ctx, time.Hour)
	if err := reg.KillAll(); err != nil || p.kills.Load() != 1 {
		t.Errorf("KillAll = %v, %d kills; want 1", err, p.kills.Load())
	}
	<-tr.Done()
	if tr.ExitCode() != 143 {
		t.Errorf("ExitCode after KillAll = %d, want 143", tr.ExitCode())
	}
	if reg.Busy() {
		t.Error("Busy = true after exit")
	}
}

// releasingProc is a command in the editor's terminal: Release leaves it to the user when
// visible, else refuses and the registry stops it.
type releasingProc struct {
	*fakeProc
	visible  bool
	releases int
}

func (p *releasingProc) Release() (bool, error) {
	p.releases++
	if !p.visible {
		return false, nil
	}
	// The host no longer reports it: its output ends here.
	_ = p.w.Close()
	close(p.exited)
	return true, nil
}

func TestStopAllReleasesEditorTerminalCommands(t *testing.T) {
	for _, visible := range []bool{true, false} {
		t.Run(fmt.Sprintf("visible=%v", visible), func(t *testing.T) {
			reg := NewRegistry()
			p := &releasingProc{fakeProc: newFakeProc(), visible: visible}
			p.killEnds = true
			tr := reg.Track("npm run dev", p)
			stopped, err := reg.StopAll(context.Background())
			if err != nil || len(stopped) != 1 || stopped[0].Released != visible || p.releases != 1 {
				t.Fatalf("StopAll = %+v, %v after %d releases", stopped, err, p.releases)
			}
			if kills := p.kills.Load(); (kills == 0) != visible {
				t.Errorf("%d kills; a released command is never killed, a refused one is", kills)
			}
			<-tr.Done()
		})
	}
}
