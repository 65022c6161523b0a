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

// Errors of the file helpers (OpenRegular, ReadRegular, WriteFileAtomic).
var (
	// ErrNotRegular refuses a FIFO, socket, device or other non-regular file: reading one can
	// block forever or never end.
	ErrNotRegular = errors.New("workspace: not a regular file")
	// ErrTooLarge is a file longer than the caller's limit.
	ErrTooLarge = errors.New("workspace: file too large")
	// ErrReadOnly refuses to replace a file whose mode has no write permission: the atomic
	// rename would otherwise replace it even though the file itself cannot be written.
	ErrReadOnly = errors.New("workspace: file is read-only")
)
