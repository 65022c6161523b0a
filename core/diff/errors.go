package diff

import "errors"

// Sentinels classify an *ApplyError (errors.Is works through it). They are never returned
// bare by Apply: the model always gets a message that says what to fix.
var (
	// ErrNoBlocks: the diff holds no SEARCH/REPLACE block at all.
	ErrNoBlocks = errors.New("diff: no SEARCH/REPLACE block")
	// ErrMalformedMarker: a line looks like a marker (it has SEARCH or REPLACE next to
	// marker characters) but is not spelled as one.
	ErrMalformedMarker = errors.New("diff: malformed marker")
	// ErrMisplacedMarker: a well-formed marker appears where it cannot (SEARCH inside an open
	// block, a second separator, REPLACE before the separator or outside a block).
	ErrMisplacedMarker = errors.New("diff: misplaced marker")
	// ErrUnclosedBlock: the diff ends inside a block's SEARCH section (one that ends inside
	// its REPLACE section is closed there instead).
	ErrUnclosedBlock = errors.New("diff: unclosed block")
	// ErrEmptySearch: an empty SEARCH section was combined with other blocks.
	ErrEmptySearch = errors.New("diff: empty SEARCH with other blocks")
	// ErrNoMatch: a SEARCH section matches nothing in the file.
	ErrNoMatch = errors.New("diff: SEARCH not found")
	// ErrAmbiguous: a fallback level found several places where it requires exactly one.
	ErrAmbiguous = errors.New("diff: SEARCH matches several places")
	// ErrOverlap: a block's match overlaps the match of an earlier block.
	ErrOverlap = errors.New("diff: blocks overlap")
)

// ApplyError is a failure the model can correct. Error returns model-facing text: it names the
// failing block, shows the most similar region of the file where that helps, and ends with
// short guidance. Unwrap returns one of the sentinels above.
type ApplyError struct {
	// Block is the 1-based index of the failing block; 0 when the diff as a whole is at fault.
	Block int
	// DiffLine is the 1-based line of the diff text the error is about (format errors), or 0.
	DiffLine int
	// Kind is the sentinel describing the failure.
	Kind error
	// Message is the full model-facing text.
	Message string
}

func (e *ApplyError) Error() string { return e.Message }

// Unwrap lets errors.Is(err, ErrNoMatch) and friends work.
func (e *ApplyError) Unwrap() error { return e.Kind }
