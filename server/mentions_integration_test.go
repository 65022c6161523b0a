package server_test

import (
	"os"
	"path/filepath"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	hostv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/host/v1"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// TestTaskExpandsSlashAndMentions: the task text reaches the model with its slash command
// turned into instructions and its mentions expanded, diagnostics coming from the editor.
func TestTaskExpandsSlashAndMentions(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{
			"<task>\n<explicit_instructions type=\"new_task\">\n",
			"</explicit_instructions>\n\nsee 'notes.md' (see below for file content) and Workspace Problems (see below for diagnostics)",
			"<file_content path=\"notes.md\">\nremember the milk\n</file_content>",
			"<workspace_diagnostics>\nmain.go\n- [error] Line 3: undefined: x (go)\n</workspace_diagnostics>\n</task>",
		}}},
	}}, servertest.Options{})
	if err := os.WriteFile(filepath.Join(e.Workspace, "notes.md"), []byte("remember the milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	host := e.ConnectHost()
	host.Diags = []*hostv1.Diagnostic{{Path: filepath.Join(e.Workspace, "main.go"), Line: 3,
		Severity: hostv1.Severity_SEVERITY_ERROR, Message: "undefined: x", Source: "go"}}
	id := e.NewTask("/newtask see @/notes.md and @problems", host.ID, act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	e.Answer(id, approve, "")
	w.UntilStatus(cairnv1.TaskStatus_TASK_STATUS_COMPLETED)
}
