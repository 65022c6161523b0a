package rpc

import (
	"errors"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task"
)

// Subscribe sends the task's snapshot, then every change as a delta, until the client goes
// away or the task closes (ClearTask, shutdown): then the stream ends cleanly.
func (s *Services) Subscribe(req *cairnv1.SubscribeRequest, stream cairnv1.UiService_SubscribeServer) error {
	ctx := stream.Context()
	if req.GetTaskId() == "" {
		return status.Error(codes.InvalidArgument, "task_id is required")
	}
	t, err := s.b.Tasks.Open(ctx, req.GetTaskId(), req.GetHostId())
	if errors.Is(err, store.ErrLocked) {
		// Another daemon runs the task (README, "One owner per task"): its history as saved,
		// read-only; any action on it is refused with who holds it.
		held, rerr := s.heldSnapshot(req.GetTaskId(), int(req.GetSnapshotTail()))
		if rerr != nil {
			return toStatus(errors.Join(err, rerr))
		}
		if err := stream.Send(held); err != nil {
			return err
		}
		<-ctx.Done()
		return nil
	}
	if err != nil {
		return toStatus(err)
	}
	msgs, state, sub := t.Subscribe()
	defer func() { sub.Close() }()
	if err := stream.Send(snapshot(msgs, state, int(req.GetSnapshotTail()))); err != nil {
		return err
	}
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			return nil // the client went away, or the task closed (ClearTask): the stream ends
		}
		var out *cairnv1.SubscribeResponse
		switch ev.Kind {
		case task.EventReset:
			// The message list was cut (a restore): start over with a fresh snapshot and a
			// fresh subscription; what the old one still queued is in the new snapshot.
			sub.Close()
			msgs, state, sub = t.Subscribe()
			out = snapshot(msgs, state, int(req.GetSnapshotTail()))
		case task.EventAdded:
			out = &cairnv1.SubscribeResponse{Event: &cairnv1.SubscribeResponse_MessageAdded{
				MessageAdded: &cairnv1.MessageAdded{Message: toMessage(ev.Message)}}}
		case task.EventAppended:
			out = &cairnv1.SubscribeResponse{Event: &cairnv1.SubscribeResponse_TextAppended{
				TextAppended: &cairnv1.TextAppended{Index: int32(ev.Index), Delta: clean(ev.Delta)}}}
		case task.EventUpdated:
			out = &cairnv1.SubscribeResponse{Event: &cairnv1.SubscribeResponse_MessageUpdated{
				MessageUpdated: &cairnv1.MessageUpdated{Message: toMessage(ev.Message)}}}
		case task.EventFinalized:
			out = &cairnv1.SubscribeResponse{Event: &cairnv1.SubscribeResponse_MessageFinalized{
				MessageFinalized: &cairnv1.MessageFinalized{Index: int32(ev.Index)}}}
		case task.EventState:
			out = &cairnv1.SubscribeResponse{Event: &cairnv1.SubscribeResponse_StateChanged{StateChanged: toState(ev.State)}}
		default:
			continue
		}
		if err := stream.Send(out); err != nil {
			return err
		}
		if ev.Kind == task.EventAppended {
			// Let the next deltas of a fast stream merge in the queue: a client gets at most
			// two text updates per 60 Hz frame, whatever the model's chunk size.
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(deltaPause):
			}
		}
	}
}

// heldSnapshot is the snapshot of a task another daemon holds, read from the store without
// opening it.
func (s *Services) heldSnapshot(id string, tail int) (*cairnv1.SubscribeResponse, error) {
	l, err := s.b.Tasks.Store().Read(id)
	if err != nil {
		return nil, err
	}
	m := l.Meta
	state := task.State{ID: m.ID, Status: task.StatusIdle, Mode: m.Mode, Title: m.Title, TokensIn: m.TokensIn,
		TokensOut: m.TokensOut, CacheReads: m.CacheReads, CacheWrites: m.CacheWrites, Cost: m.Cost,
		ContextTokens: m.ContextTokens, FocusChain: m.FocusChain, OpenAsk: -1, Model: m.Model,
		MessageCount: len(l.Messages)}
	return snapshot(l.Messages, state, tail), nil
}

// snapshot is the first event of a subscription (and the reset after a restore): the last
// tail messages (all when tail <= 0) and the state.
func snapshot(msgs []msg.Message, state task.State, tail int) *cairnv1.SubscribeResponse {
	first := 0
	if tail > 0 && tail < len(msgs) {
		first = len(msgs) - tail
	}
	snap := &cairnv1.Snapshot{State: toState(state), FirstIndex: int32(first)}
	for _, m := range msgs[first:] {
		snap.Messages = append(snap.Messages, toMessage(m))
	}
	return &cairnv1.SubscribeResponse{Event: &cairnv1.SubscribeResponse_Snapshot{Snapshot: snap}}
}

// deltaPause is the pause after a text delta: half a 60 Hz frame. A whole frame (15 ms) held
// back every chunk of a model streaming one about every 10-15 ms (a fast model's pace) until
// the pause ended, 5-9 ms at the median on the way to the webview (P9); half a frame lets those
// through as they come and still merges the chunks of a faster stream. The webview renders
// once per frame whatever it receives.
const deltaPause = 8 * time.Millisecond
