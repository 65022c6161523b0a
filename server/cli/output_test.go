package cli

import (
	"strings"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// A command output row that grows is printed as it grows; one replaced by a bounded view
// (long output) is printed again from its first changed line once it is final.
func TestCommandOutputVersions(t *testing.T) {
	cases := []struct {
		name     string
		versions []string // the row's text, the last one final
		want     string
	}{
		{"grows", []string{"a\n", "a\nb\n", "a\nb\nc\n"}, "a\nb\nc\n"},
		{"replaced by a view", []string{"1\n2\n3\n", "1\n[... 5 lines omitted ...]\n7\n", "1\n[... 9 lines omitted ...]\n11\n"},
			"1\n2\n3\n[... 9 lines omitted ...]\n11\n"},
		{"final equals the last partial", []string{"1\n2\n", "1\n[... 3 lines ...]\n9\n", "1\n[... 3 lines ...]\n9\n"},
			"1\n2\n[... 3 lines ...]\n9\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out strings.Builder
			p := &printer{io: IO{Out: &out}, shown: map[int32]string{}, lastNL: true}
			for i, text := range c.versions {
				m := &cairnv1.Message{Index: 3, Kind: &cairnv1.Message_Say{Say: cairnv1.SayKind_SAY_KIND_COMMAND_OUTPUT},
					Text: text, Partial: i < len(c.versions)-1}
				if i == 0 {
					p.show(m, "")
				} else {
					p.showOutput(m)
				}
			}
			if out.String() != c.want {
				t.Errorf("printed %q, want %q", out.String(), c.want)
			}
		})
	}
}
