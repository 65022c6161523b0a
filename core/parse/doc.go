// Package parse turns the model's streamed output into ordered blocks — text and XML tool
// calls — as the chunks arrive (docs/prompt.md, "Reading the model's reply").
//
// The parser is incremental: Feed appends a chunk and scans only bytes it has not scanned
// before, so a whole message costs O(its length), and Blocks is cheap enough to call after
// every chunk (values are substrings of one growing buffer, never copies). Rescanning a few
// bytes happens only where a decision needs input that has not arrived yet: a '<' that may
// start a tag, or a UTF-8 sequence cut by the chunk boundary.
//
// Two promises let the task loop stream deltas without ever retracting them:
//
//   - While a block is open, its text Content, and the value of the parameter being written,
//     only ever grow: each is a prefix of every later version of itself. The parser holds back
//     whatever could still change meaning — a cut-off tag such as "<wri", trailing whitespace
//     that trimming may remove, the newline a content/diff value loses at its end, half a
//     UTF-8 rune.
//   - No partial value ever shows a half-written closing tag.
//
// Two retractions are by design. Text after the first tool call is dropped when a second tool
// call follows it (only the first call counts); the loop stops reading at ToolDone, so it never
// streams that text. And write_to_file content and replace_in_file diff end at the last closing
// tag of their name before the tool closes, so a parameter that follows such a value is
// withdrawn if another closing tag of the value comes later: it was file bytes after all.
//
// The package imports only the standard library and never logs.
package parse
