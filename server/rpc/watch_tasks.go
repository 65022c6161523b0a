package rpc

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task"
)

// savedOnBoard is how many of the workspace's saved tasks that no daemon has open the board
// lists, the most recent first (History has them all).
const savedOnBoard = 50

// boardPause is how long the board waits after a change for the ones that follow it (a
// task's state changes several times as a step ends), so one board goes out for them.
const boardPause = 50 * time.Millisecond

// WatchTasks streams the board: the whole list at once, then again after each change. The
// changes come from the task manager (a task started, opened, closed; a worktree merged or
// discarded) and from each loaded task's own events (its state, its rows: a question asked
// or answered); text deltas are not changes of the board. A board may be skipped for a newer
// one; the latest is always sent.
func (s *Services) WatchTasks(req *cairnv1.WatchTasksRequest, stream cairnv1.TaskService_WatchTasksServer) error {
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	changes, stop := s.b.Tasks.Watch()
	defer stop()
	dirty := make(chan struct{}, 1)
	mark := func() {
		select {
		case dirty <- struct{}{}:
		default:
		}
	}
	watched := map[string]context.CancelFunc{}
	defer func() {
		for _, c := range watched {
			c()
		}
	}()
	// follow starts watching each newly loaded task and stops watching the ones gone.
	follow := func() {
		live := map[string]bool{}
		for _, t := range s.b.Tasks.Tasks() {
			live[t.ID()] = true
			if _, ok := watched[t.ID()]; ok {
				continue
			}
			tctx, tcancel := context.WithCancel(ctx)
			watched[t.ID()] = tcancel
			go watchTask(tctx, t, mark)
		}
		for id, c := range watched {
			if !live[id] {
				c()
				delete(watched, id)
			}
		}
	}
	follow()
	saved := s.savedTasks()
	for {
		board, err := s.board(ctx, req, saved)
		if err != nil {
			return err
		}
		if err := stream.Send(board); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-changes:
			follow()
			saved = s.savedTasks()
		case <-dirty:
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(boardPause):
		}
	}
}

// watchTask calls mark after each event of t that can change its entry on the board.
func watchTask(ctx context.Context, t *task.Task, mark func()) {
	_, _, sub := t.Subscribe()
	defer sub.Close()
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			return // the watch ended or the task closed (the manager's watch says so)
		}
		if ev.Kind != task.EventAppended {
			mark()
		}
	}
}

// savedTasks reads the history, most recent first; it is read again when a task is opened,
// started or closed, not at each event of a running one. A history that cannot be read leaves
// the board to the open tasks and the worktrees.
func (s *Services) savedTasks() []store.Meta {
	metas, err := s.b.Tasks.Store().List()
	if err != nil {
		return nil
	}
	sort.SliceStable(metas, func(i, j int) bool { return metas[i].Updated.After(metas[j].Updated) })
	return metas
}

// board builds the list: the worktree tasks of the workspace's repository (every one with
// all) with their changes, the loaded tasks of the workspace (every loaded task with all),
// each with its open question, and the workspace's most recent saved tasks that no daemon has
// open (savedOnBoard of them; of every workspace with all).
func (s *Services) board(ctx context.Context, req *cairnv1.WatchTasksRequest, saved []store.Meta) (*cairnv1.WatchTasksResponse, error) {
	root := req.GetWorkspaceRoot()
	byID := map[string]*cairnv1.BoardTask{}
	var order []*cairnv1.BoardTask
	add := func(b *cairnv1.BoardTask) *cairnv1.BoardTask {
		if old, ok := byID[b.TaskId]; ok {
			return old
		}
		byID[b.TaskId] = b
		order = append(order, b)
		return b
	}
	if s.b.Worktrees != nil && (req.GetAll() || root != "") {
		repo := root
		if req.GetAll() {
			repo = ""
		}
		wts, err := s.ListWorktrees(ctx, &cairnv1.ListWorktreesRequest{Repo: repo})
		if err == nil { // a workspace outside git has no worktrees: the loaded tasks remain
			for _, w := range wts.GetWorktrees() {
				add(&cairnv1.BoardTask{TaskId: w.TaskId, Title: w.Title, Status: boardStatus(w.Status), Cost: w.Cost,
					CostKnown: w.CostKnown, Included: w.Included, WorkspaceRoot: w.Path, Worktree: w, UpdatedUnixMs: w.Created})
			}
		}
	}
	for _, t := range s.b.Tasks.Tasks() {
		ws := t.Workspace()
		b, listed := byID[t.ID()]
		if !listed {
			if !req.GetAll() && (len(ws) == 0 || !sameFolder(ws[0], root)) {
				continue
			}
			b = add(&cairnv1.BoardTask{TaskId: t.ID()})
			if len(ws) > 0 {
				b.WorkspaceRoot = ws[0]
			}
		}
		fillLive(b, t)
		parent, created := s.b.Tasks.Origin(t)
		b.ParentId = parent
		if b.UpdatedUnixMs == 0 {
			b.UpdatedUnixMs = created.UnixMilli()
		}
		for _, sub := range subtasks(b, t.Messages()) {
			add(sub)
		}
	}
	n := 0
	for _, m := range saved {
		if n == savedOnBoard {
			break
		}
		if _, listed := byID[m.ID]; listed || !req.GetAll() && (len(m.Workspace) == 0 || !sameFolder(m.Workspace[0], root)) {
			continue
		}
		n++
		b := add(&cairnv1.BoardTask{TaskId: m.ID, Title: clean(m.Title), Status: cairnv1.TaskStatus_TASK_STATUS_IDLE, Mode: toMode(m.Mode),
			ModeSlug: clean(m.Mode), Cost: m.Cost, CostKnown: m.Cost > 0 || m.TokensIn+m.TokensOut == 0, Included: m.Included,
			ParentId: m.Parent, UpdatedUnixMs: m.Updated.UnixMilli()})
		if m.Completed {
			b.Status = cairnv1.TaskStatus_TASK_STATUS_COMPLETED
		}
		if len(m.Workspace) > 0 {
			b.WorkspaceRoot = m.Workspace[0]
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].UpdatedUnixMs < order[j].UpdatedUnixMs })
	return &cairnv1.WatchTasksResponse{Tasks: order}, nil
}

// fillLive sets what a loaded task says of itself: status, mode, cost and question.
func fillLive(b *cairnv1.BoardTask, t *task.Task) {
	st := t.State()
	b.Live, b.Title, b.Mode, b.ModeSlug, b.Cost, b.Included = true, clean(st.Title), toMode(st.Mode), clean(st.Mode), st.Cost, st.Included
	b.Status = statuses.Get()[st.Status]
	b.CostKnown = st.PricesKnown || st.Cost > 0 || st.TokensIn+st.TokensOut == 0
	if st.OpenAsk >= 0 {
		if ms := t.Messages(); st.OpenAsk < len(ms) {
			b.Ask = toMessage(ms[st.OpenAsk])
		}
	}
	if b.Worktree != nil {
		b.Worktree.Status = string(st.Status)
	}
}

// subtasks are the entries of the subtasks the task of entry b delegated (docs/modes.md, "The
// orchestrator"), read from its rows ms: one for each delegate row (a subagents row whose child
// names a mode), which the daemon replaces as the subtask moves on, so each board carries its
// latest status and cost; and one, waiting, for a delegation the task asks the user to approve,
// which takes the question from b. A subtask asks nothing itself: it runs under its parent's
// auto-approval policy, which refuses what it does not give.
func subtasks(b *cairnv1.BoardTask, ms []msg.Message) []*cairnv1.BoardTask {
	var out []*cairnv1.BoardTask
	entry := func(row int, mode, text string, status cairnv1.TaskStatus, cost float64) *cairnv1.BoardTask {
		title, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
		if title == "" {
			title = mode
		}
		return &cairnv1.BoardTask{TaskId: fmt.Sprintf("%s/subtask-%d", b.TaskId, row), ParentId: b.TaskId, Subtask: true,
			Row: int32(row), Title: clean(title), Mode: toMode(mode), ModeSlug: clean(mode), Status: status, Cost: cost,
			CostKnown: b.CostKnown, Included: b.Included, Live: b.Live, WorkspaceRoot: b.WorkspaceRoot, UpdatedUnixMs: b.UpdatedUnixMs}
	}
	for _, m := range ms {
		if m.Type != msg.Say || m.Kind != msg.SaySubagents {
			continue
		}
		var row msg.Subagents
		if err := json.Unmarshal([]byte(m.Text), &row); err != nil || len(row.Children) != 1 || row.Children[0].Mode == "" {
			continue // a use_subagents row, or one that does not parse: not a delegated subtask
		}
		c := row.Children[0]
		out = append(out, entry(m.Index, c.Mode, c.Prompt, subtaskStatuses.Get()[c.Status], c.Cost))
	}
	if a := b.GetAsk(); a.GetAsk() == cairnv1.AskKind_ASK_KIND_TOOL && a.GetTool().GetOperation() == cairnv1.ToolOperation_TOOL_OPERATION_DELEGATE {
		w := entry(int(a.GetIndex()), a.GetTool().GetPath(), a.GetTool().GetContent(), cairnv1.TaskStatus_TASK_STATUS_WAITING, 0)
		w.Ask, b.Ask = a, nil
		out = append(out, w)
	}
	return out
}

// subtaskStatuses map a delegate row's status to the task status.
var subtaskStatuses = lazy.Value[map[msg.SubagentStatus]cairnv1.TaskStatus]{New: func() map[msg.SubagentStatus]cairnv1.TaskStatus {
	return map[msg.SubagentStatus]cairnv1.TaskStatus{
		msg.SubagentRunning: cairnv1.TaskStatus_TASK_STATUS_RUNNING, msg.SubagentDone: cairnv1.TaskStatus_TASK_STATUS_COMPLETED,
		msg.SubagentFailed: cairnv1.TaskStatus_TASK_STATUS_FAILED,
	}
}}

// boardStatus maps ListWorktrees' status words to the task status.
func boardStatus(s string) cairnv1.TaskStatus {
	if v, ok := statuses.Get()[task.Status(s)]; ok {
		return v
	}
	return cairnv1.TaskStatus_TASK_STATUS_IDLE
}

// sameFolder compares two folders after cleaning them.
func sameFolder(a, b string) bool {
	return a != "" && filepath.Clean(a) == filepath.Clean(b)
}
