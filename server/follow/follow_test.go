package follow

import (
	"context"
	"io"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// events is a finished stream.
type events []*cairnv1.SubscribeResponse

func (e *events) Recv() (*cairnv1.SubscribeResponse, error) {
	if len(*e) == 0 {
		return nil, io.EOF
	}
	ev := (*e)[0]
	*e = (*e)[1:]
	return ev, nil
}

func snapshot(open int32, ms ...*cairnv1.Message) *cairnv1.SubscribeResponse {
	return &cairnv1.SubscribeResponse{Event: &cairnv1.SubscribeResponse_Snapshot{Snapshot: &cairnv1.Snapshot{
		Messages: ms, State: &cairnv1.TaskState{OpenAskIndex: open}}}}
}

func added(m *cairnv1.Message) *cairnv1.SubscribeResponse {
	return &cairnv1.SubscribeResponse{Event: &cairnv1.SubscribeResponse_MessageAdded{MessageAdded: &cairnv1.MessageAdded{Message: m}}}
}

func appended(i int32, d string) *cairnv1.SubscribeResponse {
	return &cairnv1.SubscribeResponse{Event: &cairnv1.SubscribeResponse_TextAppended{TextAppended: &cairnv1.TextAppended{Index: i, Delta: d}}}
}

func finalized(i int32) *cairnv1.SubscribeResponse {
	return &cairnv1.SubscribeResponse{Event: &cairnv1.SubscribeResponse_MessageFinalized{MessageFinalized: &cairnv1.MessageFinalized{Index: i}}}
}

func updated(m *cairnv1.Message) *cairnv1.SubscribeResponse {
	return &cairnv1.SubscribeResponse{Event: &cairnv1.SubscribeResponse_MessageUpdated{MessageUpdated: &cairnv1.MessageUpdated{Message: m}}}
}

func ask(i int32, k cairnv1.AskKind, partial bool) *cairnv1.Message {
	return &cairnv1.Message{Index: i, Kind: &cairnv1.Message_Ask{Ask: k}, Partial: partial}
}

func say(i int32, text string, partial bool) *cairnv1.Message {
	return &cairnv1.Message{Index: i, Kind: &cairnv1.Message_Say{Say: cairnv1.SayKind_SAY_KIND_TEXT}, Text: text, Partial: partial}
}

// Each complete ask goes to the policy once, in order; which asks of a snapshot go is the
// option's; the list is the client's copy with deltas applied.
func TestFollowerAnswersEachAskOnce(t *testing.T) {
	follow := cairnv1.AskKind_ASK_KIND_FOLLOWUP
	tool := cairnv1.AskKind_ASK_KIND_TOOL
	for _, c := range []struct {
		name   string
		opt    SnapshotAsks
		events events
		want   []int32
		text   string // the text of row 1 at the end
	}{
		{"snapshot asks left alone", NoSnapshotAsks, events{snapshot(1, say(0, "hi", false), ask(1, follow, false))}, nil, ""},
		{"the snapshot's open ask", OpenAsk, events{snapshot(2, ask(1, tool, false), ask(2, follow, false))}, []int32{2}, ""},
		{"every snapshot ask", AllSnapshotAsks, events{snapshot(2, ask(1, tool, false), ask(2, follow, false))}, []int32{1, 2}, ""},
		{"added, then updated: once", NoSnapshotAsks, events{snapshot(-1), added(ask(0, tool, false)), updated(ask(0, tool, false))}, []int32{0}, ""},
		{"partial until finalized", NoSnapshotAsks, events{snapshot(-1), added(ask(0, follow, true)), finalized(0)}, []int32{0}, ""},
		{"deltas applied", NoSnapshotAsks, events{snapshot(-1), added(say(0, "", false)), added(say(1, "Hel", true)), appended(1, "lo"), finalized(1)}, nil, "Hello"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []int32
			evs := c.events
			f := New(&evs, nil, func(_ context.Context, m *cairnv1.Message) (bool, error) {
				got = append(got, m.GetIndex())
				return false, nil
			}, Options{SnapshotAsks: c.opt})
			if _, err := f.Next(context.Background()); err != io.EOF {
				t.Fatalf("Next = %v, want io.EOF", err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("asks answered %v, want %v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Fatalf("asks answered %v, want %v", got, c.want)
				}
			}
			if c.text != "" {
				if ms := f.Messages(); len(ms) < 2 || ms[1].GetText() != c.text || ms[1].GetPartial() {
					t.Fatalf("row 1 = %v, want %q complete", ms, c.text)
				}
			}
		})
	}
}

// A policy that stops returns its ask; the next call goes on with the asks still pending.
func TestFollowerStopsAndGoesOn(t *testing.T) {
	evs := events{snapshot(-1), added(ask(0, cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT, false)), added(ask(1, cairnv1.AskKind_ASK_KIND_FOLLOWUP, false))}
	f := New(&evs, nil, func(context.Context, *cairnv1.Message) (bool, error) { return true, nil }, Options{})
	for _, want := range []int32{0, 1} {
		m, err := f.Next(context.Background())
		if err != nil || m.GetIndex() != want {
			t.Fatalf("Next = %v, %v; want ask %d", m, err, want)
		}
	}
	if _, err := f.Next(context.Background()); err != io.EOF {
		t.Fatalf("Next = %v, want io.EOF", err)
	}
}
