package edit

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnhq/cairn/core/internal/wine"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/protect"
)

// TestProtectedPathsCarryTheirReason: an edit of a protected file (directly, new, or through
// a symlink into .git/) tells the approval why, and opens no diff view while it streams; an
// ordinary file carries no reason.
func TestProtectedPathsCarryTheirReason(t *testing.T) {
	cases := []struct {
		name, path string
		replace    bool
		want       string
	}{
		{"existing settings", ".vscode/settings.json", true, protect.ReasonEditor},
		{"new hook", ".git/hooks/pre-commit", false, protect.ReasonGit},
		{"through a symlink", "hooks/post-checkout", false, protect.ReasonGit},
		{"rules", ".clinerules/hooks/PreToolUse", false, protect.ReasonHooks},
		{"ordinary", "src/a.go", true, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, map[string]string{".vscode/settings.json": "{\"a\": 1}\n", "src/a.go": "package a\n", ".git/HEAD": "ref\n"})
			if err := os.MkdirAll(f.path(".git/hooks"), 0o755); err != nil {
				t.Fatal(err)
			}
			if c.name == "through a symlink" {
				wine.Skip(t, wine.Symlinks)
			}
			if err := os.Symlink(filepath.Join(f.root, ".git", "hooks"), f.path("hooks")); err != nil {
				t.Fatal(err)
			}
			tool, call := NewWrite(), writeCall(c.path, "new\n")
			if c.replace {
				orig := "{\"a\": 1}\n"
				if c.path == "src/a.go" {
					orig = "package a\n"
				}
				tool, call = NewReplace(), replaceCall(c.path, block(orig, "changed\n"))
			}
			if err := tool.Preview(context.Background(), f.env, call); err != nil {
				t.Fatal(err)
			}
			opened := len(f.host.opened())
			res, err := tool.Run(context.Background(), f.env, call)
			if err != nil || res.IsError {
				t.Fatalf("Run = %+v, %v", res, err)
			}
			if c.want != "" && opened != 0 {
				t.Errorf("a protected file was previewed before approval (%d views)", opened)
			}
			a := f.ui.approvals[0]
			if a.Protected != c.want || a.Payload.(*msg.Tool).Protected != c.want {
				t.Fatalf("approval reason %q, payload %q; want %q", a.Protected, a.Payload.(*msg.Tool).Protected, c.want)
			}
		})
	}
}
