//go:build unix

package hooks

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestScrubFiltersHookEnvironment: Options.Scrub sees the environment a hook would get and
// what it removes never reaches the hook (core/agent removes variables holding a configured
// key, whatever their names).
func TestScrubFiltersHookEnvironment(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HOOK_KEEP", "kept")
	t.Setenv("MY_LLM_TOKEN", "sk-held-under-another-name")
	writeHook(t, filepath.Join(root, ".clinerules", "hooks"), PreToolUse, "#!/bin/sh\n"+
		"printf '{\"cancel\": true, \"errorMessage\": \"%s|%s\"}\\n' \"$HOOK_KEEP\" \"$MY_LLM_TOKEN\"\n")
	s, err := OpenStore("")
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	scrub := func(env []string) []string {
		seen = slices.Clone(env)
		return slices.DeleteFunc(env, func(kv string) bool { return strings.HasSuffix(kv, "=sk-held-under-another-name") })
	}
	r := NewRunner(Options{Store: s, Roots: []string{root}, TaskID: "task-1", Version: "test", Now: fixedNow, Scrub: scrub})
	trustAll(t, s, []string{root}, "")
	got := r.Fire(context.Background(), Event{Kind: PreToolUse, Data: PreToolData{ToolName: "execute_command", Parameters: map[string]string{"command": "ls"}}})
	if !got.Cancel || got.ErrorMessage != "kept|" {
		t.Fatalf("result = %+v, want the hook to see HOOK_KEEP and not MY_LLM_TOKEN", got)
	}
	if !slices.Contains(seen, "MY_LLM_TOKEN=sk-held-under-another-name") {
		t.Fatalf("Scrub was not given the hook's environment: %q", seen)
	}
}
