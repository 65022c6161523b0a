package readfile

import "errors"

// Sentinels for content the model cannot read; Run turns them into model-facing results.
var (
	// ErrBinary marks content that is not text in any encoding we recognise.
	ErrBinary = errors.New("readfile: binary content")
	// ErrDocument marks a PDF, DOCX or notebook that could not be parsed.
	ErrDocument = errors.New("readfile: unreadable document")
)
