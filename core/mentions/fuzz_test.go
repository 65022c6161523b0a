package mentions

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzParse checks the recognition invariants on any input: no panic; tokens are the input
// at their reported positions, in order and without overlap; each starts with `@` at the
// start of the text or after whitespace; and a token parsed on its own is the same mention.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "@/a.go", `@/my\ notes.md.`, `@"/a b/"!`, "@problems? @terminal @git-changes",
		"@abcdef1 @https://x.test/a).", "a@b.c (@/x) @/ @//", "@\"/\n\"", "@/a\\", "\t@/x\u00a0@/y",
		"@/\xff\xfe", `@"/a"@"/b"`, "@/a@/b", `@/a\ \ `,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ms := Parse(text)
		prev := 0
		for _, m := range ms {
			if m.Start < prev || m.End <= m.Start || m.End > len(text) {
				t.Fatalf("mention %+v out of order or range (previous end %d, len %d)", m, prev, len(text))
			}
			prev = m.End
			if text[m.Start:m.End] != m.Token {
				t.Fatalf("token %q is not text[%d:%d] = %q", m.Token, m.Start, m.End, text[m.Start:m.End])
			}
			if !strings.HasPrefix(m.Token, "@") {
				t.Fatalf("token %q does not start with @", m.Token)
			}
			if m.Start > 0 {
				r, _ := utf8.DecodeLastRuneInString(text[:m.Start])
				if !unicode.IsSpace(r) {
					t.Fatalf("token %q follows %q, not whitespace", m.Token, r)
				}
			}
			if strings.ContainsAny(m.Token[len(m.Token)-1:], trailing) && !strings.HasSuffix(m.Token, `"`) {
				t.Fatalf("token %q ends in trailing punctuation", m.Token)
			}
			alone := Parse(m.Token)
			if len(alone) != 1 || alone[0].Token != m.Token || alone[0].Kind != m.Kind || alone[0].Value != m.Value {
				t.Fatalf("token %q alone parses as %+v, in context as %+v", m.Token, alone, m)
			}
		}
	})
}
