package parse

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// atoms are the pieces random messages are built from: the tags that matter, cut-off tags,
// newlines of both kinds, and runes split across their bytes.
var atoms = []string{
	"<", ">", "</", "x", " ", "\n", "\r", "é", "\xe3\x80", "\x80",
	"<write_to_file>", "</write_to_file>", "<content>", "</content>", "<path>", "</path>",
	"<replace_in_file>", "</replace_in_file>", "<diff>", "</diff>",
	"<read_file>", "</read_file>", "<execute_command>", "<command>", "</command>",
	"<task_progress>", "</task_progress>", "<cont", "</pa", "<read_fi", "<thinking>",
}

// TestRandomMessages is a property test over messages of tag soup: any three-way chunking
// gives the result of one Feed, and nothing streamed is retracted.
func TestRandomMessages(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	g := DefaultGrammar()
	for range 3000 {
		var sb strings.Builder
		for range rng.IntN(40) {
			sb.WriteString(atoms[rng.IntN(len(atoms))])
		}
		s := sb.String()
		want := Parse(g, s)
		i := rng.IntN(len(s) + 1)
		j := i + rng.IntN(len(s)-i+1)
		if got := feedChunks(t, g, []string{s[:i], s[i:j], s[j:]}); !sameBlocks(got, want) {
			t.Fatalf("chunks at %d,%d of %q\ngot: %s\nwant: %s", i, j, s, canonical(t, got), canonical(t, want))
		}
	}
}
