package treesitter

import "errors"

var (
	// ErrUnsupported is returned by Parse for a file extension without a grammar.
	ErrUnsupported = errors.New("treesitter: unsupported language")
	// ErrParse is returned when tree-sitter produced no tree: the context ended (its error
	// is wrapped too) or the parser gave up. Syntax errors still yield a tree.
	ErrParse = errors.New("treesitter: parse failed")
)
