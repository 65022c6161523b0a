package runstate

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

// fakeTask records the headers published and plays the other owners: a queue of texts and
// at most one open question.
type fakeTask struct {
	mu        sync.Mutex
	published []Status
	queue     []string
	open      *fakeQuestion
	runs      chan string // the text each run opened with
	block     chan struct{}
}

func newFake() *fakeTask {
	return &fakeTask{runs: make(chan string, 8), block: make(chan struct{})}
}

func (f *fakeTask) Publish(s Status) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.published = append(f.published, s)
}

func (f *fakeTask) AskOpen() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.open != nil
}

func (f *fakeTask) Post(kind msg.Kind, _ string, _ msg.Payload, _ *msg.Why) Question {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.open = &fakeQuestion{f: f, kind: kind, ch: make(chan tools.Answer, 1)}
	return f.open
}

func (f *fakeTask) Resume() (Question, func(tools.Answer) Run, bool) {
	q := f.Post(msg.AskResumeTask, "", nil, nil)
	return q, func(a tools.Answer) Run { return f.run("resume: " + a.Text) }, true
}

func (f *fakeTask) Queued(bool) (Run, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.queue) == 0 {
		return nil, false
	}
	text := f.queue[0]
	f.queue = f.queue[1:]
	return f.run(text), true
}

func (f *fakeTask) NotResumed(error) {}
func (f *fakeTask) Recover(string)   { _ = recover() }
func (f *fakeTask) answer(a string)  { f.takeOpen().ch <- tools.Answer{Text: a} }
func (f *fakeTask) statuses() []Status {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.published)
}

func (f *fakeTask) takeOpen() *fakeQuestion {
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.open
	f.open = nil
	return q
}

// run is a run that reports its text and ends cancelled when its context is, else completed
// once block is closed.
func (f *fakeTask) run(text string) Run {
	return func(ctx context.Context) Status {
		f.runs <- text
		select {
		case <-ctx.Done():
			return Cancelled
		case <-f.block:
			return Completed
		}
	}
}

type fakeQuestion struct {
	f    *fakeTask
	kind msg.Kind
	ch   chan tools.Answer
}

func (q *fakeQuestion) Row() int { return 0 }
func (q *fakeQuestion) Wait(ctx context.Context) (tools.Answer, error) {
	select {
	case a := <-q.ch:
		return a, nil
	case <-ctx.Done():
		return tools.Answer{}, ctx.Err()
	}
}
func (q *fakeQuestion) Withdraw() bool {
	q.f.mu.Lock()
	defer q.f.mu.Unlock()
	if q.f.open != q {
		return false
	}
	q.f.open = nil
	return true
}
func (q *fakeQuestion) FromQueue(func()) {}

// Start is the one decision of busy: a second run is refused while one runs, and nothing
// starts once the task is closed.
func TestStartDecidesBusy(t *testing.T) {
	f := newFake()
	o := New(f)
	if err := o.Start(f.run("first")); err != nil {
		t.Fatal(err)
	}
	<-f.runs
	if err := o.Start(f.run("second")); !errors.Is(err, ErrBusy) {
		t.Fatalf("a second run: %v, want ErrBusy", err)
	}
	if first, err := o.Close(context.Background()); !first || err != nil {
		t.Fatalf("Close: %v %v", first, err)
	}
	if err := o.Start(f.run("after")); !errors.Is(err, ErrClosed) {
		t.Fatalf("a run after Close: %v, want ErrClosed", err)
	}
	if first, _ := o.Close(context.Background()); first {
		t.Fatal("a second Close closed again")
	}
}

// A message sent while a run is active is queued, and when the run ends it starts the next run
// in the same decision that cleared the first; a cancelled run with nothing queued asks to be
// resumed, and the answer starts the next run.
func TestRunEndSendsTheQueueOrAsksToResume(t *testing.T) {
	f := newFake()
	o := New(f)
	if err := o.Start(f.run("first")); err != nil {
		t.Fatal(err)
	}
	<-f.runs
	queued, err := o.Continue(func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.queue = append(f.queue, "queued")
	}, f.run("unused"))
	if err != nil || !queued {
		t.Fatalf("Continue while running: queued %v, %v", queued, err)
	}
	if err := o.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := <-f.runs; got != "queued" {
		t.Fatalf("the run after the first opened with %q, want the queued message", got)
	}
	if err := o.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !f.AskOpen() {
		t.Fatal("a cancelled run with nothing queued asks nothing")
	}
	f.answer("go on")
	if got := <-f.runs; got != "resume: go on" {
		t.Fatalf("the answer opened %q", got)
	}
	// Done is nil once the run has ended (idle): take the running one's before letting it end.
	done := o.Done()
	if done == nil {
		t.Fatal("no run in progress after the answer")
	}
	close(f.block)
	<-done
	if _, err := o.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []Status{Running, Running, Cancelled, Cancelled, Running, Cancelled, Waiting, Running, Running, Completed}
	if got := f.statuses(); !slices.Equal(got, want) {
		t.Errorf("published %v, want %v", got, want)
	}
}

// A restore keeps every run from starting until it ends, and then asks to resume.
func TestRestoreHoldsStarts(t *testing.T) {
	f := newFake()
	o := New(f)
	end, err := o.BeginRestore()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.BeginRestore(); !errors.Is(err, ErrBusy) {
		t.Fatalf("a second restore: %v, want ErrBusy", err)
	}
	if err := o.Start(f.run("x")); !errors.Is(err, ErrBusy) {
		t.Fatalf("a run while restoring: %v, want ErrBusy", err)
	}
	end()
	if !f.AskOpen() {
		t.Fatal("the end of a restore asks nothing")
	}
	if err := o.WithdrawResume(context.Background()); err != nil {
		t.Fatal(err)
	}
	if f.AskOpen() {
		t.Fatal("the resume question is still open after it was withdrawn")
	}
	if _, err := o.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestAfterWaiting(t *testing.T) {
	cases := []struct {
		now, prev, want Status
	}{
		{Waiting, Running, Running},
		{Waiting, Idle, Running},
		{Waiting, Completed, Running},
		{Waiting, Cancelled, Running},
		{Waiting, Waiting, Running},
		{Waiting, Failed, Failed},
		{Cancelled, Running, Cancelled},
	}
	for _, c := range cases {
		t.Run(string(c.now)+"_after_"+string(c.prev), func(t *testing.T) {
			if got := afterWaiting(c.now, c.prev); got != c.want {
				t.Errorf("afterWaiting(%s, %s) = %s, want %s", c.now, c.prev, got, c.want)
			}
		})
	}
}
