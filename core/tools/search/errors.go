package search

import "errors"

// Sentinel errors; the tool turns them into model-facing results.
var (
	ErrBadRegex = errors.New("invalid regex")
	ErrBadGlob  = errors.New("invalid file pattern")
	// ErrNoTree: env.Files cannot walk folders.
	ErrNoTree = errors.New("search: the workspace does not support searching")
)
