// Package diff is Cairn's edit engine: it parses SEARCH/REPLACE blocks, locates each block in
// the original file (exact, then whitespace-trimmed, then out of order, then by anchor lines),
// and produces the new file content together with the validated list of edits (docs/tools.md,
// "Editing files").
//
// The package never touches the disk. Callers hand it the original bytes and get new bytes
// back; when anything is wrong, nothing is produced and the caller keeps the file as it was.
// Errors the model can fix are *ApplyError values whose text is written for the model; they
// wrap one of the sentinels in errors.go so callers can classify them.
//
// Line endings, a UTF-8 BOM and a missing final newline are properties of the file, not of the
// edit: they are taken off before matching and put back on output, so a CRLF file stays CRLF
// and lines outside the edited ranges stay byte-identical.
//
// Preview serves the streaming diff view: it consumes the growing diff incrementally and keeps
// the cost of every update proportional to the new text, not to the file or the diff so far.
package diff
