package rpc

import (
	"errors"
	"os"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cairnhq/cairn/core/worktree"
)

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
