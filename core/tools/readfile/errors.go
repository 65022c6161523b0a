package readfile

import "errors"

// Sentinels for content the model cannot read; Run turns them into model-facing results.
var (
	// ErrBinary marks content that is not text in any encoding we recognise.
	ErrBinary = errors.New("readfile: binary content")
	// ErrDocument marks a PDF, DOCX or notebook that could not be parsed.
	ErrDocument = errors.New("readfile: unreadable document")
	// ErrHelper marks a document or a legacy-encoded file left unread because cairn-helper,
	// which converts them (core/helper), is missing, was killed or failed: the installation's
	// fault, not the file's.
	ErrHelper = errors.New("readfile: cairn-helper could not convert the document")
)
