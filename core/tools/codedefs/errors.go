package codedefs

import "errors"

var (
	// ErrUnsupported is returned by Parse for a file extension without a grammar.
	ErrUnsupported = errors.New("codedefs: unsupported language")
	// ErrParse is returned when tree-sitter produced no tree (it only fails when cancelled or
	// out of memory; syntax errors still yield a tree).
	ErrParse = errors.New("codedefs: parse failed")
)
