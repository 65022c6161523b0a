package server_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// Edits over gRPC (docs/tools.md, "Editing files"): the real daemon, the fake model, and a fake
// editor host on the real bridge that keeps diffs in memory and writes them on save.

const goFile = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n"

func replaceIn(path, diff string) string {
	return "Changing it.\n<replace_in_file>\n<path>" + path + "</path>\n<diff>\n" + diff + "</diff>\n</replace_in_file>"
}

func sr(search, replace string) string {
	return "------- SEARCH\n" + search + "=======\n" + replace + "+++++++ REPLACE\n"
}

// seed writes a workspace file with a mode and returns its path.
func seed(t *testing.T, e *servertest.Env, name, content string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(e.Workspace, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// sameFile fails unless path holds exactly content with mode.
func sameFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, []byte(content)) || st.Mode().Perm() != mode {
		t.Fatalf("%s = %q mode %v; want %q mode %v", path, got, st.Mode().Perm(), content, mode)
	}
}

// mustClose closes c and fails the test when that reports an error.
func mustClose(t testing.TB, c io.Closer) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

func llmOK(t *testing.T, e *servertest.Env) {
	t.Helper()
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestEditApprovedResultReachesModel(t *testing.T) {
	diff := sr("\tfmt.Println(\"hi\")\n", "\tfmt.Println(\"hello\")\n")
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: replaceIn("main.go", diff), ChunkSize: 11},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{
			"[replace_in_file for 'main.go'] Result:",
			"The content was successfully saved to main.go.",
			"<final_file_content path=\"main.go\">\npackage main\n",
			"fmt.Println(\"hello\")\n}\n</final_file_content>",
		}, LastUserNotContains: []string{"not exactly as you proposed"}}},
	}}, servertest.Options{})
	p := seed(t, e, "main.go", goFile, 0o644)
	host := e.ConnectHost()
	id := e.NewTask("say hello", host.ID, act)
	w := e.Watch(id)
	ask := w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	if !strings.Contains(ask.GetTool().GetDiff(), "+\tfmt.Println(\"hello\")") {
		t.Fatalf("the approval shows no diff: %v", ask.GetTool())
	}
	e.Answer(id, approve, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	sameFile(t, p, strings.Replace(goFile, "hi", "hello", 1), 0o644)
	// The diff view opened while the call streamed is the one that was saved.
	if opened, saved, reverted := host.Counts(); opened != 1 || saved != 1 || reverted != 0 {
		t.Fatalf("host diffs opened=%d saved=%d reverted=%d", opened, saved, reverted)
	}
	llmOK(t, e)
}

func TestEditChangedOnSaveIsReported(t *testing.T) {
	cases := []struct {
		name   string
		onSave func(path, proposal string) string
		want   []string
	}{
		{name: "user edits the proposal",
			onSave: func(_, s string) string { return strings.Replace(s, "\"hello\"", "\"hello, user\"", 1) },
			want: []string{"the user or by the editor's formatter", "-    fmt.Println(\"hello\")\n+    fmt.Println(\"hello, user\")",
				"<final_file_content path=\"main.go\">", "fmt.Println(\"hello, user\")\n}\n</final_file_content>"}},
		{name: "formatter on save",
			onSave: func(_, s string) string { return strings.ReplaceAll(s, "    ", "\t") },
			want: []string{"not exactly as you proposed", "-    fmt.Println(\"hello\")\n+\tfmt.Println(\"hello\")",
				"func main() {\n\tfmt.Println(\"hello\")\n}\n</final_file_content>"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			diff := sr("\tfmt.Println(\"hi\")\n", "    fmt.Println(\"hello\")\n")
			e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
				{Text: replaceIn("main.go", diff)},
				{Text: complete, Expect: &llmtest.Expect{LastUserContains: c.want}},
			}}, servertest.Options{})
			p := seed(t, e, "main.go", goFile, 0o644)
			host := e.ConnectHost()
			host.OnSave = c.onSave
			id := e.NewTask("edit", host.ID, act)
			w := e.Watch(id)
			w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
			e.Answer(id, approve, "")
			w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
			want := c.onSave(p, strings.Replace(goFile, "\tfmt.Println(\"hi\")", "    fmt.Println(\"hello\")", 1))
			sameFile(t, p, want, 0o644)
			llmOK(t, e)
		})
	}
}

func TestEditRejectedExistingFileIsByteIdentical(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: replaceIn("main.go", sr("\tfmt.Println(\"hi\")\n", "\tpanic(1)\n")), ChunkSize: 7},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"denied", "was not changed"}}},
	}}, servertest.Options{})
	p := seed(t, e, "main.go", goFile, 0o600)
	host := e.ConnectHost()
	id := e.NewTask("edit", host.ID, act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	e.Answer(id, reject, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	sameFile(t, p, goFile, 0o600)
	if _, saved, reverted := host.Counts(); saved != 0 || reverted != 1 {
		t.Fatalf("host diffs saved=%d reverted=%d", saved, reverted)
	}
	llmOK(t, e)
}

func TestEditRejectedNewFileLeavesNoFolders(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("deep/er/new.txt", "fresh\n"), ChunkSize: 5},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"denied"}}},
	}}, servertest.Options{})
	host := e.ConnectHost()
	id := e.NewTask("create", host.ID, act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	if _, err := os.Stat(filepath.Join(e.Workspace, "deep", "er", "new.txt")); err != nil {
		t.Fatalf("the host shows the new file while its diff is open: %v", err)
	}
	e.Answer(id, reject, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if _, err := os.Stat(filepath.Join(e.Workspace, "deep")); !os.IsNotExist(err) {
		t.Fatalf("deep/ survived the rejected new file: %v", err)
	}
	llmOK(t, e)
}

func TestEditCancelWhileDiffOpenReverts(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: replaceIn("main.go", sr("\tfmt.Println(\"hi\")\n", "\tos.Exit(1)\n"))},
	}}, servertest.Options{})
	p := seed(t, e, "main.go", goFile, 0o640)
	host := e.ConnectHost()
	id := e.NewTask("edit", host.ID, act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	if _, err := e.Tasks.CancelTask(context.Background(), &cairnv1.CancelTaskRequest{TaskId: id}); err != nil {
		t.Fatal(err)
	}
	// The resume offer comes after the loop (and the tool's revert) has returned.
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_RESUME_TASK)
	if opened, saved, reverted := host.Counts(); opened != 1 || saved != 0 || reverted != 1 {
		t.Fatalf("host diffs opened=%d saved=%d reverted=%d", opened, saved, reverted)
	}
	sameFile(t, p, goFile, 0o640)
}

func TestEditBadSearchReachesModelFileUntouched(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: replaceIn("main.go", sr("\tfmt.Printn(\"hi\")\n", "\tfmt.Println(\"x\")\n")), ChunkSize: 9},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{
			"[replace_in_file for 'main.go'] Result:", "The edit of main.go failed and the file was not changed",
			"Block 1", "fmt.Printn(\"hi\")", "The closest part of the file", "6 | \tfmt.Println(\"hi\")"}}},
	}}, servertest.Options{})
	p := seed(t, e, "main.go", goFile, 0o644)
	host := e.ConnectHost()
	id := e.NewTask("edit", host.ID, act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	sameFile(t, p, goFile, 0o644)
	if opened, saved, reverted := host.Counts(); saved != 0 || opened != reverted {
		t.Fatalf("host diffs opened=%d saved=%d reverted=%d: a view was left open", opened, saved, reverted)
	}
	if errs := servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_DIFF_ERROR); len(errs) != 1 {
		t.Fatalf("diff_error rows = %d", len(errs))
	}
	llmOK(t, e)
}

// TestEditThreeFailuresCountAMistake: the third failed edit of one file in a row tells the
// model to re-read the file or rewrite it, and counts one mistake — with a mistake limit of 1
// the limit is reached exactly then, not after the first or second failure.
func TestEditThreeFailuresCountAMistake(t *testing.T) {
	bad := replaceIn("main.go", sr("\tnot there\n", "\tx\n"))
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: bad},
		{Text: bad, Expect: &llmtest.Expect{LastUserContains: []string{"was not changed"}, LastUserNotContains: []string{"failed several times"}}},
		{Text: bad, Expect: &llmtest.Expect{LastUserContains: []string{"was not changed"}, LastUserNotContains: []string{"failed several times"}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{
			"Editing main.go has failed several times in a row", "read_file", "write_to_file", "read it again"}}},
	}}, servertest.Options{Settings: func(s *config.Settings) { s.MistakeLimit = 1 }})
	p := seed(t, e, "main.go", goFile, 0o644)
	id := e.NewTask("edit", "", act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_MISTAKE_LIMIT_REACHED)
	if n := len(e.LLM.Requests()); n != 3 {
		t.Fatalf("mistake limit reached after %d requests, want 3 (the third failed edit)", n)
	}
	e.Answer(id, message, "read it again")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	sameFile(t, p, goFile, 0o644)
	llmOK(t, e)
}
