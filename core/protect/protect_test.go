package protect

import (
	"strings"
	"testing"
)

func TestReason(t *testing.T) {
	tests := []struct {
		rel  string
		want string
	}{
		{".git/hooks/pre-commit", ReasonGit},
		{".git/config", ReasonGit},
		{".git", ReasonGit},
		{"vendor/lib/.git/config", ReasonGit},
		{".GIT/hooks/post-checkout", ReasonGit},
		{"./.git/./hooks/../config", ReasonGit},
		{".clinerules/hooks/PreToolUse", ReasonHooks},
		{".clinerules", ReasonHooks},
		{".cairnrules/style.md", ReasonHooks},
		{".cairn/hooks/x", ReasonHooks},
		{".cursor/rules/a.mdc", ReasonHooks},
		{"pkg/.cursor/rules/a.mdc", ReasonHooks},
		{".claude/settings.json", ReasonHooks},
		{".vscode/settings.json", ReasonEditor},
		{"web/.vscode/tasks.json", ReasonEditor},
		{".clineignore", ReasonIgnore},
		{"sub/.cairnignore", ReasonIgnore},
		{"AGENTS.md", ReasonAgentDoc},
		{"docs/AGENTS.md", ReasonAgentDoc},
		{".cursorrules", ReasonAgentDoc},
		{".windsurfrules", ReasonAgentDoc},
		{".roomodes", ReasonModes},
		{"sub/.roomodes", ReasonModes},
		{`win\.git\config`, ReasonGit},
		{".husky/pre-commit", ReasonHusky},
		{".husky", ReasonHusky},
		{"web/.Husky/_/husky.sh", ReasonHusky},

		{"main.go", ""},
		{"husky/pre-commit", ""},
		{"src/git/config.go", ""},
		{".github/workflows/ci.yml", ""},
		{".gitignore", ""},
		{".cursor/settings.json", ""},
		{"cursor/rules/x", ""},
		{"AGENTS.md.bak", ""},
		{"notes/my.vscode", ""},
		{".git-blame-ignore", ""},
		{"a/.git/../b.txt", ""},
	}
	for _, tt := range tests {
		t.Run(tt.rel, func(t *testing.T) {
			if got := Reason(tt.rel); got != tt.want {
				t.Errorf("Reason(%q) = %q, want %q", tt.rel, got, tt.want)
			}
		})
	}
}

func TestEveryEntryMatchesItsPattern(t *testing.T) {
	for _, e := range List {
		t.Run(e.Pattern, func(t *testing.T) {
			if e.Reason == "" {
				t.Fatal("entry without a reason")
			}
			p := e.Pattern
			if len(p) > 3 && p[len(p)-3:] == "/**" {
				p = p[:len(p)-3] + "/x"
			}
			if Reason(p) != e.Reason || Reason("deep/er/"+p) != e.Reason {
				t.Errorf("%q (top level and nested) not protected with its own reason", p)
			}
		})
	}
}

func TestHolds(t *testing.T) {
	disk := map[string]bool{"sub/.git": true, "web/.vscode": true, "plain/a.txt": true, ".git": true}
	exists := func(rel string) bool { return disk[rel] }
	tests := []struct {
		dir, want string
	}{
		{"sub", ReasonGit},
		{"web", ReasonEditor},
		{".", ReasonGit},
		{"plain", ""},
		{"missing", ""},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			if got := Holds(tt.dir, exists); got != tt.want {
				t.Errorf("Holds(%q) = %q, want %q", tt.dir, got, tt.want)
			}
		})
	}
}

// Each entry's parts are the components of its pattern, without the folder's "/**".
func TestPartsFollowPatterns(t *testing.T) {
	for _, e := range List {
		if got := strings.Join(e.parts, "/"); got != strings.TrimSuffix(e.Pattern, "/**") {
			t.Errorf("%s: parts %q", e.Pattern, e.parts)
		}
	}
}
