// Package follow reads a task's event stream (UiService.Subscribe) the one way every client of
// the daemon needs: it keeps the client's copy of the task's messages and state, tells a
// Reader each change after applying it, and hands every question the task asks, once, to a
// Policy that answers it. The command line, the ACP agent, the benchmark harness and the test
// helper differ only in their Reader and their Policy.
//
// What the stream guarantees is in server/rpc/subscribe.go: appended text may arrive merged,
// every other event arrives, and a cut of the conversation (a checkpoint restore) arrives as
// a fresh snapshot.
package follow

import (
	"context"
	"sync"

	"google.golang.org/protobuf/proto"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// Stream is a task's subscription (cairnv1.UiService_SubscribeClient). Recv returns io.EOF when
// the daemon ended it and the context's error when it was cancelled.
type Stream interface {
	Recv() (*cairnv1.SubscribeResponse, error)
}

// Reader is told each change once the follower applied it. Every method is called on the
// goroutine that calls Next, in the order of the events, with Options.Lock held when one is
// set. The messages it is given are the follower's copies: a reader reads them and does not
// change them.
type Reader interface {
	// Snapshot starts a snapshot (the first event, or a fresh one after a cut) with its state;
	// each of its rows follows as Row, then SnapshotEnd.
	Snapshot(ctx context.Context, st *cairnv1.TaskState)
	Row(ctx context.Context, m *cairnv1.Message)
	SnapshotEnd(ctx context.Context, st *cairnv1.TaskState)
	// Added is a new row.
	Added(ctx context.Context, m *cairnv1.Message)
	// Appended is text appended to a row still streaming; m already holds it.
	Appended(ctx context.Context, m *cairnv1.Message, delta string)
	// Finalized is a streaming row that is complete now (m is no longer partial).
	Finalized(ctx context.Context, m *cairnv1.Message)
	// Updated is a row replaced whole; old is the version before (nil: a row not seen yet).
	Updated(ctx context.Context, m, old *cairnv1.Message)
	// State is the task's new state.
	State(ctx context.Context, st *cairnv1.TaskState)
}

// Policy answers a question the task asks. It is called once per ask row, once the row is
// complete, after the Reader was told of the event that completed it, and without
// Options.Lock. stop ends Next with that ask; an error ends Next with it too.
type Policy func(ctx context.Context, ask *cairnv1.Message) (stop bool, err error)

// SnapshotAsks says which asks of a snapshot go to the Policy: the questions asked before the
// client followed are usually answered already.
type SnapshotAsks int

// Which asks of a snapshot are answered.
const (
	// NoSnapshotAsks leaves every ask of a snapshot alone.
	NoSnapshotAsks SnapshotAsks = iota
	// OpenAsk answers the snapshot's open ask (a resume question, an ask posted before the
	// client followed).
	OpenAsk
	// AllSnapshotAsks hands every ask row of the snapshot to the Policy, in order (a Policy
	// that knows which are old).
	AllSnapshotAsks
)

// Options tune a Follower; the zero value follows with no lock and answers no ask of a
// snapshot.
type Options struct {
	SnapshotAsks SnapshotAsks
	// Lock, when set, is held while an event is applied and the Reader told: a caller that
	// reads Messages or State from another goroutine holds it too.
	Lock sync.Locker
	// OnEvent, when set, sees each event as received, before it is applied (with Lock held);
	// an error ends Next with it.
	OnEvent func(ev *cairnv1.SubscribeResponse) error
}

// Follower follows one task's stream. It is used from one goroutine at a time.
type Follower struct {
	stream Stream
	reader Reader
	policy Policy
	opts   Options

	// msgs is the client's copy of the messages, by index (nil where none arrived); state the
	// last state. Both are guarded by opts.Lock when one is set.
	msgs  []*cairnv1.Message
	state *cairnv1.TaskState
	// handled marks the ask rows given to the policy; pending are complete asks not yet given
	// (an event may complete several, and the policy may stop at the first).
	handled map[int32]bool
	pending []*cairnv1.Message
}

// New returns a follower of stream that tells r (nil: nobody) and answers with p (nil: no
// ask is answered and Next returns only when the stream ends).
func New(stream Stream, r Reader, p Policy, opts Options) *Follower {
	if r == nil {
		r = Ignore{}
	}
	return &Follower{stream: stream, reader: r, policy: p, opts: opts, handled: map[int32]bool{}}
}

// Next follows the stream until the policy stops on an ask, which it returns, or the stream
// ends, whose error it returns (io.EOF when the daemon ended it). A follower that returned an
// ask goes on where it stopped at the next call.
func (f *Follower) Next(ctx context.Context) (*cairnv1.Message, error) {
	for {
		for len(f.pending) > 0 && f.policy != nil {
			m := f.pending[0]
			f.pending = f.pending[1:]
			if stop, err := f.policy(ctx, m); err != nil || stop {
				return m, err
			}
		}
		ev, err := f.stream.Recv()
		if err != nil {
			return nil, err
		}
		if err := f.apply(ctx, ev); err != nil {
			return nil, err
		}
	}
}

// Messages returns the client's copy of the messages, by index (nil where none arrived). The
// slice is the follower's: with Options.Lock, read it with the lock held.
func (f *Follower) Messages() []*cairnv1.Message { return f.msgs }

// State returns the last state (nil before the first snapshot).
func (f *Follower) State() *cairnv1.TaskState { return f.state }

func (f *Follower) apply(ctx context.Context, ev *cairnv1.SubscribeResponse) error {
	if l := f.opts.Lock; l != nil {
		l.Lock()
		defer l.Unlock()
	}
	if f.opts.OnEvent != nil {
		if err := f.opts.OnEvent(ev); err != nil {
			return err
		}
	}
	r := f.reader
	switch e := ev.Event.(type) {
	case *cairnv1.SubscribeResponse_Snapshot:
		st := e.Snapshot.GetState()
		f.msgs, f.state = f.msgs[:0], st
		r.Snapshot(ctx, st)
		for _, m := range e.Snapshot.GetMessages() {
			m = f.set(m)
			r.Row(ctx, m)
			switch f.opts.SnapshotAsks {
			case OpenAsk:
				if m.GetIndex() == st.GetOpenAskIndex() {
					f.whole(m)
				}
			case AllSnapshotAsks:
				f.whole(m)
			}
		}
		r.SnapshotEnd(ctx, st)
	case *cairnv1.SubscribeResponse_MessageAdded:
		m := f.set(e.MessageAdded.GetMessage())
		r.Added(ctx, m)
		f.whole(m)
	case *cairnv1.SubscribeResponse_TextAppended:
		if m := f.at(e.TextAppended.GetIndex()); m != nil {
			m.Text += e.TextAppended.GetDelta()
			r.Appended(ctx, m, e.TextAppended.GetDelta())
		}
	case *cairnv1.SubscribeResponse_MessageFinalized:
		if m := f.at(e.MessageFinalized.GetIndex()); m != nil && m.GetPartial() {
			m.Partial = false
			r.Finalized(ctx, m)
			f.whole(m)
		}
	case *cairnv1.SubscribeResponse_MessageUpdated:
		old := f.at(e.MessageUpdated.GetMessage().GetIndex())
		m := f.set(e.MessageUpdated.GetMessage())
		r.Updated(ctx, m, old)
		f.whole(m)
	case *cairnv1.SubscribeResponse_StateChanged:
		f.state = e.StateChanged
		r.State(ctx, e.StateChanged)
	}
	return nil
}

// whole queues m for the policy when it is a complete ask not yet given to it.
func (f *Follower) whole(m *cairnv1.Message) {
	if m.GetAsk() == cairnv1.AskKind_ASK_KIND_UNSPECIFIED || m.GetPartial() || f.handled[m.GetIndex()] {
		return
	}
	f.handled[m.GetIndex()] = true
	f.pending = append(f.pending, m)
}

// set stores a copy of m at its index (the event stays as received) and returns the copy.
func (f *Follower) set(m *cairnv1.Message) *cairnv1.Message {
	i := int(m.GetIndex())
	for len(f.msgs) <= i {
		f.msgs = append(f.msgs, nil)
	}
	c := proto.Clone(m).(*cairnv1.Message)
	f.msgs[i] = c
	return c
}

func (f *Follower) at(i int32) *cairnv1.Message {
	if i < 0 || int(i) >= len(f.msgs) {
		return nil
	}
	return f.msgs[i]
}

// Ignore is a Reader that is told nothing; a reader embeds it for the changes it does not
// care about.
type Ignore struct{}

// Snapshot ignores the change.
func (Ignore) Snapshot(context.Context, *cairnv1.TaskState) {}

// Row ignores the change.
func (Ignore) Row(context.Context, *cairnv1.Message) {}

// SnapshotEnd ignores the change.
func (Ignore) SnapshotEnd(context.Context, *cairnv1.TaskState) {}

// Added ignores the change.
func (Ignore) Added(context.Context, *cairnv1.Message) {}

// Appended ignores the change.
func (Ignore) Appended(context.Context, *cairnv1.Message, string) {}

// Finalized ignores the change.
func (Ignore) Finalized(context.Context, *cairnv1.Message) {}

// Updated ignores the change.
func (Ignore) Updated(context.Context, *cairnv1.Message, *cairnv1.Message) {}

// State ignores the change.
func (Ignore) State(context.Context, *cairnv1.TaskState) {}
