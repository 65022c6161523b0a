package window

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/llm"
)

// BenchmarkProject measures one request's projection of a long task: 1,000 messages, the user
// turns re-reading 20 files of 6 KB (6 MB of history), under the limit so only dedup runs.
func BenchmarkProject(b *testing.B) {
	file := strings.Repeat("func f() { return }\n", 300)
	h := []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("<task>\nx\n</task>")}}}
	for i := 0; len(h) < 1000; i++ {
		p := fmt.Sprintf("f%d.go", i%20)
		h = append(h, llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("<read_file>\n<path>" + p + "</path>\n</read_file>")}},
			llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text("[read_file for '" + p + "'] Result:\n" + file)}})
	}
	s := &State{Dedup: true}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.seen = 0
		Project(h, s, 1000, 1_000_000)
	}
}
