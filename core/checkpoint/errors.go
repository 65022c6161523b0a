package checkpoint

import "errors"

// Sentinel errors; callers test them with errors.Is. Their texts are fit for a banner.
var (
	// ErrGitMissing is returned by New when no git executable is found.
	ErrGitMissing = errors.New("checkpoints: git must be installed to use checkpoints")
	// ErrProtectedDir is returned by New for the home folder (and Desktop, Documents,
	// Downloads, the filesystem root): snapshotting them would copy far too much.
	ErrProtectedDir = errors.New("checkpoints: not available when the workspace is your home, Desktop, Documents or Downloads folder; open a project folder instead")
	// ErrTooSlow is returned by the first Commit when it took longer than the first-checkpoint
	// limit; the Manager is disabled afterwards.
	ErrTooSlow = errors.New("checkpoints: the first checkpoint took too long (is the workspace very large?); checkpoints are off for this task")
	// ErrDisabled is returned by every call after the Manager was disabled (it wraps the cause).
	ErrDisabled = errors.New("checkpoints: disabled")
	// ErrBadHash is returned for a hash that does not name a checkpoint of this workspace.
	ErrBadHash = errors.New("checkpoints: no such checkpoint")
)
