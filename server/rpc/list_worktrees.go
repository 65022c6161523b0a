package rpc

import (
	"context"
	"time"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task"
)

// ListWorktrees lists the tasks that have a worktree, with the task's status and cost: a
// loaded task says its own (one whose open question is its completion is completed); one that
// is not loaded is running while another process holds it (its owner lock), completed when its history ends in its completion, else idle.
func (s *Services) ListWorktrees(ctx context.Context, req *cairnv1.ListWorktreesRequest) (*cairnv1.ListWorktreesResponse, error) {
	wm, err := s.worktrees()
	if err != nil {
		return nil, err
	}
	list, err := wm.List(ctx, req.GetRepo())
	if err != nil {
		return nil, worktreeStatus(err)
	}
	metas := map[string]store.Meta{}
	if st := s.b.Tasks.Store(); st != nil && len(list) > 0 {
		all, err := st.List()
		if err != nil {
			return nil, toStatus(err)
		}
		for _, m := range all {
			metas[m.ID] = m
		}
	}
	out := &cairnv1.ListWorktreesResponse{}
	for _, e := range list {
		info := &cairnv1.WorktreeInfo{TaskId: e.TaskID, Title: clean(e.Title), Branch: clean(e.Branch), Path: clean(e.Path),
			Repo: clean(e.Repo), Base: e.Base, FilesChanged: int32(e.Stats.Files), LinesAdded: int32(e.Stats.Added),
			LinesRemoved: int32(e.Stats.Removed), Created: e.Created.UnixMilli()}
		if !e.Merged.IsZero() {
			info.Merged = e.Merged.Format(time.RFC3339)
		}
		m, saved := metas[e.TaskID]
		switch t, loaded := s.b.Tasks.Get(e.TaskID); {
		case loaded:
			st := t.State()
			info.Status, info.Cost = string(st.Status), st.Cost
			info.CostKnown, info.Included = st.PricesKnown || st.Cost > 0 || st.TokensIn+st.TokensOut == 0, st.Included
			if t.OpenAsk() == msg.AskCompletionResult || t.OpenAsk() == msg.AskResumeCompletedTask {
				info.Status = string(task.StatusCompleted) // done; the ask only takes feedback
			}
		case s.heldElsewhere(e.TaskID) != nil:
			info.Status, info.Cost = string(task.StatusRunning), m.Cost // in another process
			info.CostKnown = pricesKnown(m) || m.TokensIn+m.TokensOut == 0
		case saved && (m.Completed || s.endedInCompletion(e.TaskID)):
			info.Status, info.Cost = string(task.StatusCompleted), m.Cost
			info.CostKnown = pricesKnown(m) || m.TokensIn+m.TokensOut == 0
		default:
			info.Status, info.Cost = string(task.StatusIdle), m.Cost
			info.CostKnown = pricesKnown(m) || m.TokensIn+m.TokensOut == 0
		}
		if !e.Present {
			info.Status = "missing"
		}
		out.Worktrees = append(out.Worktrees, info)
	}
	return out, nil
}

// endedInCompletion reports whether the saved task's last row is its completion, as a run
// that ended at attempt_completion leaves it (`cairn run` ends there).
func (s *Services) endedInCompletion(id string) bool {
	loaded, err := s.b.Tasks.Store().Read(id)
	if err != nil {
		return false
	}
	n := len(loaded.Messages)
	return n > 0 && loaded.Messages[n-1].Type == msg.Ask && loaded.Messages[n-1].Kind == msg.AskCompletionResult
}
