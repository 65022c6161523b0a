package sandbox

import (
	"slices"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/protect"
)

// Every entry of core/protect's list is protected in the sandbox too: what the edit tools
// refuse to write, an auto-approved command may not rewrite either (.git is narrowed to what
// git runs or reads as settings).
func TestProtectedNamesCoverTheProtectedList(t *testing.T) {
	for _, e := range protect.List {
		name := strings.TrimSuffix(e.Pattern, "/**")
		if name == ".git" {
			if !slices.Contains(ProtectedNames, ".git/hooks") || !slices.Contains(ProtectedNames, ".git/config") {
				t.Errorf("ProtectedNames lacks .git's hooks or config")
			}
			continue
		}
		if !slices.Contains(ProtectedNames, name) {
			t.Errorf("%s is protected from edits (core/protect) but not in the sandbox's ProtectedNames", name)
		}
	}
}
