package search

import "testing"

// TestMessagesHaveEveryKey: each key the tool names is a section of messages.md, and the
// description file is not empty.
func TestMessagesHaveEveryKey(t *testing.T) {
	keys := []string{"param_path", "param_regex", "param_file_pattern", "found", "more", "cut", "blocked",
		"bad_regex", "bad_glob", "not_found", "denied"}
	for _, key := range keys {
		if messages.Sections()[key] == "" {
			t.Errorf("messages.md lacks %q", key)
		}
	}
	if len(messages.Sections()) != len(keys) {
		t.Errorf("messages.md has %d sections, want %d: a section no code names is dead text", len(messages.Sections()), len(keys))
	}
	if description == "" {
		t.Error("description.md is empty")
	}
}
