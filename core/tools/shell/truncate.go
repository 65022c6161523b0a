package shell

import "fmt"

// DefaultLineLimit caps command output sent to the model when the setting is 0 (docs/settings.md,
// outputLineLimit).
const DefaultLineLimit = 500

// omittedNote marks where Truncate (and the registry's backlog cap) cut lines out.
const omittedNote = "[... %d lines omitted ...]"

// Truncate keeps the first and last lines of text so that at most limit lines (and about
// DefaultByteLimit bytes) remain, with a note counting the lines cut in between. The head
// shows how a command started, the tail how it ended (errors, summaries), which is what the
// model usually needs. limit <= 0 means DefaultLineLimit.
func Truncate(text string, limit int) string {
	v := newView(limit, 0)
	v.write([]byte(text))
	return v.render(func(lines int, _ int64) string { return fmt.Sprintf(omittedNote, lines) })
}

// Bound is Truncate with a byte cap as well (<= 0: DefaultByteLimit), for output kept before
// it was bounded as it arrived.
func Bound(text string, lines, bytes int) string {
	v := newView(lines, bytes)
	v.write([]byte(text))
	return v.render(func(n int, size int64) string { return render("omitted", omittedData{Lines: n, Size: humanSize(size)}) })
}
