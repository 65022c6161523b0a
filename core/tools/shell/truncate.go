package shell

import (
	"fmt"
	"strings"
)

// DefaultLineLimit caps command output sent to the model when the setting is 0 (spec §8).
const DefaultLineLimit = 500

// omittedNote marks where Truncate cut lines out.
const omittedNote = "[... %d lines omitted ...]"

// Truncate keeps the first and last lines of text so that at most limit lines remain, with a
// note counting the lines cut in between. The head shows how a command started, the tail how
// it ended (errors, summaries), which is what the model usually needs. limit <= 0 means
// DefaultLineLimit.
func Truncate(text string, limit int) string {
	if limit <= 0 {
		limit = DefaultLineLimit
	}
	lines := strings.Count(text, "\n") + 1
	if lines <= limit {
		return text
	}
	head := limit / 2
	tail := limit - head
	headEnd := 0 // index of the newline ending the head
	for range head {
		headEnd += strings.IndexByte(text[headEnd:], '\n') + 1
	}
	tailStart := len(text)
	for range tail {
		tailStart = strings.LastIndexByte(text[:tailStart], '\n')
	}
	note := fmt.Sprintf(omittedNote, lines-limit)
	return text[:headEnd] + note + text[tailStart:]
}
