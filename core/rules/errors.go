package rules

import "errors"

// Sentinels callers branch on (the RPC edge maps them to InvalidArgument/AlreadyExists/NotFound).
var (
	// ErrBadName is returned by Create for a rule name that is not a plain file name.
	ErrBadName = errors.New("rules: invalid rule name")
	// ErrExists is returned by Create when a rule file with that name already exists.
	ErrExists = errors.New("rules: rule already exists")
	// ErrUnknownID is returned by Delete for an ID that names no deletable rule file.
	ErrUnknownID = errors.New("rules: unknown rule id")
	// ErrNoDir is returned when the folder an operation needs (workspace root or global
	// folder) was not given.
	ErrNoDir = errors.New("rules: no folder given")
)
