package listfiles

import "testing"

// TestMessagesHaveEveryKey: each key the tool names is a section of messages.md, and the
// description file is not empty.
func TestMessagesHaveEveryKey(t *testing.T) {
	for _, key := range []string{"param_path", "param_recursive", "blocked", "refused", "not_found", "truncated", "empty", "denied"} {
		if messages.Sections()[key] == "" {
			t.Errorf("messages.md lacks %q", key)
		}
	}
	if len(messages.Sections()) != 8 {
		t.Errorf("messages.md has %d sections, want 8: a section no code names is dead text", len(messages.Sections()))
	}
	if description == "" {
		t.Error("description.md is empty")
	}
}
