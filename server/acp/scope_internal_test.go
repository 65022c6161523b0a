package acp

import (
	"os"
	"strings"
	"testing"
)

// The scope of "always" for a command line is its programs and subcommands, and none for an
// interpreter, a command without a subcommand or a line the allow list cannot cover; the
// cases are testdata/scopes.txt.
func TestCommandScope(t *testing.T) {
	b, err := os.ReadFile("testdata/scopes.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		line, want, ok := strings.Cut(l, "\t")
		if !ok {
			t.Fatalf("testdata/scopes.txt: no tab in %q", l)
		}
		t.Run(line, func(t *testing.T) {
			cmds, ok := commandScope(line)
			got := "-"
			if ok {
				got = strings.Join(cmds, " | ")
			}
			if got != want {
				t.Errorf("scope = %q, want %q", got, want)
			}
		})
	}
}
