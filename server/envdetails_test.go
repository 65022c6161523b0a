package server_test

import (
	"os"
	"path/filepath"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// TestEnvironmentDetailsOverGRPC drives a task through the real daemon and the fake editor:
// the first request carries the editor's files and the first-turn file list, later requests
// do not repeat the list; the agent's own edit is not reported as a change by someone else,
// a change behind its back is.
func TestEnvironmentDetailsOverGRPC(t *testing.T) {
	firstOnly := []string{"# Current Working Directory (", "# Workspace Configuration", "# Detected CLI Tools"}
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<read_file>\n<path>main.go</path>\n</read_file>", Expect: &llmtest.Expect{LastUserContains: []string{
			"# TestEditor Visible Files\nmain.go\n\n",
			"# TestEditor Open Tabs\nmain.go\ndocs/guide.md\n\n",
			"Files\ngo.mod\nmain.go\ndocs/\ndocs/guide.md\n",
			`"projectFiles":["go.mod"]`,
			"# Current Mode\nACT MODE",
		}, LastUserNotContains: []string{"secret.txt", "# Recently Modified Files"}}},
		{Text: writeFile("main.go", "package main // by the agent\n"), Expect: &llmtest.Expect{
			LastUserContains:    []string{"[read_file for 'main.go'] Result:", "# TestEditor Visible Files\nmain.go\n"},
			LastUserNotContains: firstOnly}},
		{Text: "<ask_followup_question>\n<question>Ready?</question>\n</ask_followup_question>", Expect: &llmtest.Expect{
			LastUserContains:    []string{"[write_to_file for 'main.go'] Result:"},
			LastUserNotContains: append([]string{"# Recently Modified Files"}, firstOnly...)}},
		{Text: complete, Expect: &llmtest.Expect{
			LastUserContains:    []string{"# Recently Modified Files\n", "\nmain.go\n\n# Current Time"},
			LastUserNotContains: firstOnly}},
	}}, servertest.Options{Settings: func(s *config.Settings) { s.AutoApprove.EditFiles = true }})
	writeTree(t, e.Workspace, map[string]string{
		"go.mod": "module example.com/app\n", "main.go": "package main\n", "docs/guide.md": "# Guide\n",
		"secret.txt": "token\n", ".cairnignore": "secret.txt\n",
	})
	host := e.ConnectHost()
	abs := func(rel string) string { return filepath.Join(e.Workspace, rel) }
	host.Visible = []string{abs("main.go"), abs("secret.txt")}
	host.Tabs = []string{abs("main.go"), abs("docs/guide.md"), abs("secret.txt")}

	id := e.NewTask("look at main.go", host.ID, act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_FOLLOWUP)
	if err := os.WriteFile(abs("main.go"), []byte("package main // by the user, behind the agent's back\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.Answer(id, message, "yes")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if err := e.LLM.Err(); err != nil {
		t.Fatalf("%v\nfirst request's last user message:\n%s", err, lastUser(t, e.LLM, 0))
	}
	if n := len(e.LLM.Requests()); n != 4 {
		t.Fatalf("%d model requests, want 4", n)
	}
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
