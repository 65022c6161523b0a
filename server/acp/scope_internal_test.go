package acp

import (
	"os"
	"strings"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
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

// An ask a managed policy rule decided offers no "always" answer: no grant of the session
// could loosen it (docs/settings.md, "Policy files"); the same ask without it offers both.
func TestLockedAskOffersNoAlways(t *testing.T) {
	ask := func(locked bool) *cairnv1.Message {
		return &cairnv1.Message{Kind: &cairnv1.Message_Ask{Ask: cairnv1.AskKind_ASK_KIND_COMMAND},
			Payload: &cairnv1.Message_Command{Command: &cairnv1.CommandPayload{Command: "npm test"}},
			Why:     &cairnv1.ApprovalWhy{Lines: []string{"ask — …"}, Locked: locked}}
	}
	ids := func(m *cairnv1.Message) (out []string) {
		for _, o := range permissionOptions(m) {
			out = append(out, string(o.OptionId))
		}
		return out
	}
	if got := strings.Join(ids(ask(false)), ","); got != "allow_once,allow_always,reject_once,reject_always" {
		t.Errorf("unlocked: %s", got)
	}
	if got := strings.Join(ids(ask(true)), ","); got != "allow_once,reject_once" {
		t.Errorf("locked: %s", got)
	}
}
