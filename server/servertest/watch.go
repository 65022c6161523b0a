package servertest

import (
	"context"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cairnhq/cairn/server/follow"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// Watch follows a task's subscription (server/follow) and keeps the client-side message
// list, as a UI does. It counts the bytes received, for the delta tests.
type Watch struct {
	e      *Env
	cancel context.CancelFunc
	f      *follow.Follower

	// mu guards everything below and the follower's list; cond signals changes.
	mu      sync.Mutex
	cond    *sync.Cond
	events  int
	bytes   int
	deltas  int
	err     error
	history []*cairnv1.SubscribeResponse
}

// Watch subscribes to a task.
func (e *Env) Watch(taskID string) *Watch {
	e.T.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := e.UI.Subscribe(ctx, &cairnv1.SubscribeRequest{TaskId: taskID})
	if err != nil {
		cancel()
		e.T.Fatalf("Subscribe: %v", err)
	}
	w := &Watch{e: e, cancel: cancel}
	w.cond = sync.NewCond(&w.mu)
	w.f = follow.New(stream, nil, nil, follow.Options{Lock: &w.mu, OnEvent: w.count})
	e.T.Cleanup(cancel)
	go func() {
		_, err := w.f.Next(ctx) // no policy: it returns when the stream ends
		w.mu.Lock()
		w.err = err
		w.cond.Broadcast()
		w.mu.Unlock()
	}()
	// Wake waiters periodically so deadlines are noticed.
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				w.mu.Lock()
				w.cond.Broadcast()
				w.mu.Unlock()
			}
		}
	}()
	return w
}

// Close ends the subscription.
func (w *Watch) Close() { w.cancel() }

// count counts an event as received and wakes the waiters (w.mu is held: follow.Options.Lock);
// the follower applies it right after, under the same hold.
func (w *Watch) count(ev *cairnv1.SubscribeResponse) error {
	w.events++
	w.bytes += proto.Size(ev)
	w.history = append(w.history, ev)
	if ev.GetTextAppended() != nil {
		w.deltas++
	}
	w.cond.Broadcast()
	return nil
}

// Stats returns events, bytes and text deltas received so far.
func (w *Watch) Stats() (events, bytes, deltas int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.events, w.bytes, w.deltas
}

// Messages returns a copy of the client-side list.
func (w *Watch) Messages() []*cairnv1.Message {
	w.mu.Lock()
	defer w.mu.Unlock()
	msgs := w.f.Messages()
	out := make([]*cairnv1.Message, len(msgs))
	for i, m := range msgs {
		out[i] = proto.Clone(m).(*cairnv1.Message)
	}
	return out
}

// State returns the last state.
func (w *Watch) State() *cairnv1.TaskState {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.f.State()
}

// Until waits for cond over the message list and state; it fails the test after Timeout.
func (w *Watch) Until(what string, cond func(msgs []*cairnv1.Message, st *cairnv1.TaskState) bool) {
	w.e.T.Helper()
	deadline := time.Now().Add(Timeout)
	w.mu.Lock()
	defer w.mu.Unlock()
	for !cond(w.f.Messages(), w.f.State()) {
		if w.err != nil {
			w.e.T.Fatalf("waiting for %s: subscription ended: %v\n%s", what, w.err, dump(w.f.Messages()))
		}
		if time.Now().After(deadline) {
			w.e.T.Fatalf("timed out waiting for %s\n%s", what, dump(w.f.Messages()))
		}
		w.cond.Wait()
	}
}

// UntilEnd waits for the subscription to end and returns how it ended (io.EOF: the daemon
// ended the stream); it fails the test after Timeout.
func (w *Watch) UntilEnd() error {
	w.e.T.Helper()
	deadline := time.Now().Add(Timeout)
	w.mu.Lock()
	defer w.mu.Unlock()
	for w.err == nil {
		if time.Now().After(deadline) {
			w.e.T.Fatalf("timed out waiting for the subscription to end\n%s", dump(w.f.Messages()))
		}
		w.cond.Wait()
	}
	return w.err
}

// UntilAsk waits until the task's open ask is of kind and returns it.
func (w *Watch) UntilAsk(kind cairnv1.AskKind) *cairnv1.Message {
	w.e.T.Helper()
	var found *cairnv1.Message
	w.Until("ask "+kind.String(), func(msgs []*cairnv1.Message, st *cairnv1.TaskState) bool {
		if st == nil || st.GetOpenAskIndex() < 0 || int(st.GetOpenAskIndex()) >= len(msgs) {
			return false
		}
		m := msgs[st.GetOpenAskIndex()]
		if m != nil && m.GetAsk() == kind {
			found = proto.Clone(m).(*cairnv1.Message)
			return true
		}
		return false
	})
	return found
}

// UntilStatus waits for a task status.
func (w *Watch) UntilStatus(s cairnv1.TaskStatus) {
	w.e.T.Helper()
	w.Until("status "+s.String(), func(_ []*cairnv1.Message, st *cairnv1.TaskState) bool {
		return st != nil && st.GetStatus() == s
	})
}

// Find returns the messages of a say kind.
func Find(msgs []*cairnv1.Message, say cairnv1.SayKind) []*cairnv1.Message {
	var out []*cairnv1.Message
	for _, m := range msgs {
		if m != nil && m.GetSay() == say {
			out = append(out, m)
		}
	}
	return out
}

func dump(msgs []*cairnv1.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		if m == nil {
			b.WriteString("  <nil>\n")
			continue
		}
		kind := m.GetSay().String()
		if m.GetAsk() != cairnv1.AskKind_ASK_KIND_UNSPECIFIED {
			kind = "ASK " + m.GetAsk().String()
		}
		text := m.GetText()
		if len(text) > 200 {
			text = text[:200] + "…"
		}
		b.WriteString("  " + kind + ": " + strings.ReplaceAll(text, "\n", "⏎") + "\n")
	}
	return b.String()
}

// History returns every event received, in order.
func (w *Watch) History() []*cairnv1.SubscribeResponse {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]*cairnv1.SubscribeResponse(nil), w.history...)
}
