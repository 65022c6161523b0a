package shell

import (
	"testing"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/protect"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

// TestProtectedCommandCarriesItsReason: a command that writes a protected file says which
// and why in its approval; the user's "no" means it never runs.
func TestProtectedCommandCarriesItsReason(t *testing.T) {
	cases := []struct {
		command, want string
	}{
		{"echo x > .git/hooks/post-checkout", ".git/hooks/post-checkout: " + protect.ReasonGit},
		{"git config core.hooksPath .evil-hooks", ".git/config: " + protect.ReasonGit},
		{"echo x > notes.txt", ""},
	}
	for _, c := range cases {
		t.Run(c.command, func(t *testing.T) {
			ui := &fakeUI{approve: tools.Answer{}}
			env := newEnv(t, ui)
			ws, err := workspace.New(env.Files.Root())
			if err != nil {
				t.Fatal(err)
			}
			env.Files = ws
			res, err := New(NewRegistry()).Run(testCtx(t), env, call("command", c.command, "requires_approval", "false"))
			if err != nil || !res.Rejected {
				t.Fatalf("Run = %+v, %v", res, err)
			}
			a := ui.approvals[0]
			if a.Protected != c.want || a.Payload.(*msg.Command).Protected != c.want {
				t.Fatalf("reason %q, payload %q; want %q", a.Protected, a.Payload.(*msg.Command).Protected, c.want)
			}
		})
	}
}
