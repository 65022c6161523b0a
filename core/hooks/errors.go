package hooks

import "errors"

// Errors of the trust store and of running hooks.
var (
	// ErrNotFound is returned when trusting or toggling a file that is not a hook.
	ErrNotFound = errors.New("hooks: no such hook")
	// ErrTooLarge is returned for a hook file larger than MaxFileSize.
	ErrTooLarge = errors.New("hooks: the hook file is too large")
	// ErrChanged is returned when trusting a hook whose file changed since the user saw it.
	ErrChanged = errors.New("hooks: the hook changed since it was shown; review it again")
)
