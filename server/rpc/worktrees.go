package rpc

import (
	"errors"
	"fmt"
	"log/slog"
	"os"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/worktree"
)

// running says whether task id runs: loaded here and running, or held by another process
// (its owner lock: a `cairn run` with a private daemon, or another daemon), and if so, how
// to stop it first, for the refusal of a discard or a merge (README, "Tasks in worktrees").
func (s *Services) running(id, what string) error {
	if t, ok := s.b.Tasks.Get(id); ok {
		if t.State().Status != task.StatusRunning {
			return nil
		}
		return fmt.Errorf("%w: cancel it (Cancel in the chat, or Ctrl-C in its `cairn run`), then %s", worktree.ErrRunning, what)
	}
	lk := s.heldElsewhere(id)
	if lk == nil {
		return nil
	}
	who := "another Cairn process"
	if lk.PID > 0 {
		who = fmt.Sprintf("Cairn process %d", lk.PID)
	}
	return fmt.Errorf("%w in %s: stop that run first (Ctrl-C in its terminal, or kill %d), then %s", worktree.ErrRunning, who, lk.PID, what)
}

// heldElsewhere returns who holds task id's owner lock when this daemon does not have it
// loaded, or nil. A lock that cannot be probed is logged and counts as not held.
func (s *Services) heldElsewhere(id string) *store.LockedError {
	st := s.b.Tasks.Store()
	if st == nil {
		return nil
	}
	if _, loaded := s.b.Tasks.Get(id); loaded {
		return nil
	}
	lk, err := st.Holder(id)
	if err != nil {
		slog.Warn("task lock not probed", "task", id, "err", err)
		return nil
	}
	return lk
}

// worktreeStatus maps the errors of core/worktree to gRPC codes. A conflict is
// FailedPrecondition whose message names the files.
func worktreeStatus(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, worktree.ErrNotGitRepo), errors.Is(err, worktree.ErrConflict), errors.Is(err, worktree.ErrRunning):
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.Is(err, worktree.ErrNotFound):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, worktree.ErrBadMode):
		return status.Error(codes.InvalidArgument, err.Error())
	}
	return toStatus(err)
}

// worktrees returns the daemon's worktree manager, or Unimplemented without one.
func (s *Services) worktrees() (*worktree.Manager, error) {
	if s.b.Worktrees == nil {
		return nil, status.Error(codes.Unimplemented, "worktrees are not available")
	}
	return s.b.Worktrees, nil
}

// maxReviewFile bounds each side of a file in a worktree's review, so many changed files
// stay within one gRPC message.
const maxReviewFile = 256 << 10

// tooLargeToShow stands for a side of a file larger than maxReviewFile.
const tooLargeToShow = "(larger than 256 KiB: open the file to see it)\n"

// limitText returns s, or tooLargeToShow for a longer one.
func limitText(s string) string {
	if len(s) > maxReviewFile {
		return tooLargeToShow
	}
	return s
}

// readFileLimited reads the file at p for a review, or tooLargeToShow.
func readFileLimited(p string) (string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if st.Size() > maxReviewFile {
		return tooLargeToShow, nil
	}
	data, err := os.ReadFile(p)
	return string(data), err
}
