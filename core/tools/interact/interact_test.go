package interact

import (
	"strings"
	"testing"
)

// TestEveryToolHasItsDescription: each interact tool's spec takes its description from a
// section of descriptions.md named after the tool, and no section is left over.
func TestEveryToolHasItsDescription(t *testing.T) {
	all := All(nil)
	for _, tool := range all {
		s := tool.Spec()
		if _, ok := descriptions.Sections()[s.Name]; !ok || s.Description == "" || strings.HasPrefix(s.Description, "missing message") {
			t.Errorf("%s: description %q", s.Name, s.Description)
		}
	}
	if len(descriptions.Sections()) != len(all) {
		t.Errorf("descriptions.md has %d sections for %d tools", len(descriptions.Sections()), len(all))
	}
}
