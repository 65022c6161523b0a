package worktree

import "errors"

// Errors.
var (
	// ErrNotGitRepo is returned by Create for a folder that is not inside a git repository
	// (or one without any commit yet): such a workspace can only have a normal task.
	ErrNotGitRepo = errors.New("not a git repository with a commit: start a normal task instead")
	// ErrNotFound is returned for a task that has no worktree.
	ErrNotFound = errors.New("no worktree for this task")
	// ErrRunning is returned for a discard or a merge while the task still runs, in this
	// daemon or in another process that holds it.
	ErrRunning = errors.New("the task is running")
	// ErrConflict is wrapped by Merge's *ConflictError.
	ErrConflict = errors.New("merge conflict")
	// ErrBadMode is returned by Merge for an unknown merge mode.
	ErrBadMode = errors.New("unknown merge mode")
)

// ConflictError lists the files a merge would conflict on. The user's tree is unchanged.
type ConflictError struct {
	Files []string
}

func (e *ConflictError) Error() string {
	return "merge conflict in " + joinNames(e.Files) + "; nothing was changed: commit or set aside your own " +
		"changes to those files and merge again, or review the task's changes and carry them over by hand"
}

// Unwrap makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Unwrap() error { return ErrConflict }

func joinNames(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}
