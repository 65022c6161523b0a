package server_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// TestNonUTF8FileNameThroughTheTools drives list_files, search_files, read_file and
// replace_in_file over a Latin-1 file name through the real daemon. The model only ever sees
// and writes the name with U+FFFD (its API is JSON), the clients see it that way too
// (protobuf), and each tool still finds the file; the stream to the client never breaks.
func TestNonUTF8FileNameThroughTheTools(t *testing.T) {
	const shown = "d\uFFFDp/caf\uFFFD.txt" // the name as the model and the clients see it
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<list_files>\n<path>.</path>\n<recursive>true</recursive>\n</list_files>"},
		{Text: "<search_files>\n<path>.</path>\n<regex>au lait</regex>\n</search_files>",
			Expect: &llmtest.Expect{LastUserContains: []string{"[list_files for '.'] Result:", shown}}},
		{Text: "<read_file>\n<path>" + shown + "</path>\n</read_file>",
			Expect: &llmtest.Expect{LastUserContains: []string{"[search_files for 'au lait'] Result:", shown, "au lait"}}},
		{Text: replaceIn(shown, sr("first line\n", "second line\n")),
			Expect: &llmtest.Expect{LastUserContains: []string{"[read_file for '" + shown + "'] Result:", "first line\n", "au lait"}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"[replace_in_file for '" + shown + "'] Result:", "successfully saved"}}},
	}}, servertest.Options{Settings: func(s *config.Settings) { s.AutoApprove.EditFiles = true }})
	onDisk := filepath.Join(e.Workspace, "d\xe9p", "caf\xe9.txt")
	if err := os.MkdirAll(filepath.Dir(onDisk), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(onDisk, []byte("first line\ncaf\xe9 au lait\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := e.NewTask("look at the caf\uFFFD files", "", act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	e.Answer(id, approve, "")
	w.UntilStatus(cairnv1.TaskStatus_TASK_STATUS_COMPLETED)
	llmOK(t, e)

	// The edit landed in the real file; its Latin-1 byte on the untouched line is kept.
	sameFile(t, onDisk, "second line\ncaf\xe9 au lait\n", 0o644)
	var paths []string
	for _, m := range w.Messages() {
		if p := m.GetTool().GetPath(); p != "" {
			paths = append(paths, p)
		}
	}
	if !strings.Contains(strings.Join(paths, "\n"), shown) {
		t.Errorf("tool rows reached the client with paths %q, want %q among them", paths, shown)
	}
}
