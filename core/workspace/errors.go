package workspace

import "errors"

// Sentinel errors; callers test them with errors.Is.
var (
	// ErrNoRoots is returned by New when no root folder is given.
	ErrNoRoots = errors.New("workspace: no root folders")
	// ErrBadPath is returned by Resolve for a path that cannot name a file (NUL byte).
	ErrBadPath = errors.New("workspace: invalid path")
	// ErrNotDir is returned when a root is not a directory.
	ErrNotDir = errors.New("workspace: not a directory")
)
