package server_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// TestTwoRootsSearchedAndListedTogether opens a task on two workspace roots in the real
// daemon: search_files and list_files with `.` answer from both, the second root's paths as
// `lib:path`, and a search repeated once the daemon's index may be warm answers the same.
func TestTwoRootsSearchedAndListedTogether(t *testing.T) {
	search := "<search_files>\n<path>.</path>\n<regex>needle</regex>\n</search_files>"
	found := []string{"[search_files for 'needle'] Result:", "Found 2 results.", "app.txt\n│----\n│needle in the app", "lib:lib.txt\n│----\n│needle in the lib"}
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: search},
		{Text: "<list_files>\n<path>.</path>\n<recursive>true</recursive>\n</list_files>", Expect: &llmtest.Expect{LastUserContains: found}},
		{Text: search, Expect: &llmtest.Expect{LastUserContains: []string{"[list_files for '.'] Result:", "app.txt\nlib:lib.txt\nlib:sub/\nlib:sub/deep.txt"}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: found}},
	}}, servertest.Options{})
	lib := filepath.Join(t.TempDir(), "lib")
	for name, content := range map[string]string{
		filepath.Join(e.Workspace, "app.txt"): "needle in the app\n",
		filepath.Join(lib, "lib.txt"):         "needle in the lib\n",
		filepath.Join(lib, "sub", "deep.txt"): "nothing here\n",
	} {
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := e.Tasks.NewTask(context.Background(), &cairnv1.NewTaskRequest{Text: "find the needles",
		WorkspaceRoots: []string{e.Workspace, lib}, Mode: act})
	if err != nil {
		t.Fatal(err)
	}
	w := e.Watch(resp.GetTaskId())
	defer w.Close()
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	llmOK(t, e)
}
