package server_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/msg"
)

// docsMode is a mode that may read and edit Markdown files only (docs/modes.md).
const docsMode = `---
name: Docs Writer
description: Writing the project's documentation.
groups: [read, edit]
fileRegex: \.md$
fileRegexDescription: Markdown files only
---
Write short sentences.
`

// reviewerMode may only read.
const reviewerMode = `---
name: Reviewer
description: Reviewing changes without touching them.
groups: [read]
---
Say what is wrong; change nothing.
`

// writeModes puts mode files in the workspace's .cairn/modes.
func writeModes(t *testing.T, ws string, files map[string]string) {
	t.Helper()
	dir := filepath.Join(ws, ".cairn", "modes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// newTaskIn starts a task in a mode named by its slug.
func newTaskIn(t *testing.T, e *servertest.Env, text, mode string) string {
	t.Helper()
	resp, err := e.Tasks.NewTask(context.Background(), &cairnv1.NewTaskRequest{Text: text, WorkspaceRoots: []string{e.Workspace},
		ModeSlug: mode})
	if err != nil {
		t.Fatalf("NewTask: %v", err)
	}
	return resp.GetTaskId()
}

// TestDocsModeRefusesWhatItMayNotDo: a task in a mode with read and edit limited to `\.md$`
// is not offered execute_command, has a .go edit refused with the pattern named and a
// command refused without it running, edits a .md file and completes.
func TestDocsModeRefusesWhatItMayNotDo(t *testing.T) {
	ws := t.TempDir()
	writeModes(t, ws, map[string]string{"docs.md": docsMode})
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<write_to_file>\n<path>main.go</path>\n<content>package main\n</content>\n</write_to_file>",
			Expect: &llmtest.Expect{Contains: []string{"You are in the Docs Writer mode (docs).", "Write short sentences."},
				NotContains: []string{"## execute_command", "## browser_action", "## delegate"}}},
		{Text: "<execute_command>\n<command>touch ran.txt</command>\n<requires_approval>false</requires_approval>\n</execute_command>",
			Expect: &llmtest.Expect{LastUserContains: []string{`\.md$`, "main.go", "Markdown files only"}}},
		{Text: "<write_to_file>\n<path>docs/guide.md</path>\n<content># Guide\n</content>\n</write_to_file>",
			Expect: &llmtest.Expect{LastUserContains: []string{"execute_command is not available in the Docs Writer mode"}}},
		{Text: complete},
	}}, servertest.Options{Workspace: ws, Settings: func(s *config.Settings) {
		s.AutoApprove.EditFiles = true
		s.AutoApprove.AllCommands = true
	}})
	id := newTaskIn(t, e, "document the project", "docs")
	w := e.Watch(id)
	defer w.Close()
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
	if st := w.State(); st.GetModeSlug() != "docs" || st.GetMode() != act {
		t.Fatalf("mode in the header: %q / %v", st.GetModeSlug(), st.GetMode())
	}
	for _, name := range []string{"main.go", "ran.txt"} {
		if _, err := os.Stat(filepath.Join(e.Workspace, name)); !os.IsNotExist(err) {
			t.Errorf("%s exists (err %v): the mode let it through", name, err)
		}
	}
	if b, err := os.ReadFile(filepath.Join(e.Workspace, "docs", "guide.md")); err != nil || string(b) != "# Guide\n" {
		t.Fatalf("docs/guide.md: %q, %v", b, err)
	}
}

// TestSwitchModeAsks: switch_mode asks the user (the policy does not approve it), and once
// approved the next request is in the new mode.
func TestSwitchModeAsks(t *testing.T) {
	ws := t.TempDir()
	writeModes(t, ws, map[string]string{"docs.md": docsMode})
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<switch_mode>\n<mode_slug>docs</mode_slug>\n<reason>only docs change</reason>\n</switch_mode>",
			Expect: &llmtest.Expect{Contains: []string{"You are in ACT MODE now.", "- docs (Docs Writer): Writing the project's documentation."}}},
		{Text: complete, Expect: &llmtest.Expect{Contains: []string{"You are in the Docs Writer mode (docs)."},
			LastUserContains: []string{"Switched to the Docs Writer mode"}}},
	}}, servertest.Options{Workspace: ws, Settings: func(s *config.Settings) {
		s.AutoApprove.ReadFiles, s.AutoApprove.EditFiles = true, true
	}})
	id := e.NewTask("write the docs", "", act)
	w := e.Watch(id)
	defer w.Close()
	ask := w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	if op := ask.GetTool().GetOperation(); op != cairnv1.ToolOperation_TOOL_OPERATION_SWITCH_MODE || ask.GetTool().GetPath() != "docs" {
		t.Fatalf("ask: %v %q", op, ask.GetTool().GetPath())
	}
	if st := w.State(); st.GetModeSlug() != "act" {
		t.Fatalf("the mode changed before the user answered: %q", st.GetModeSlug())
	}
	e.Answer(id, approve, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
	if st := w.State(); st.GetModeSlug() != "docs" {
		t.Fatalf("mode after the switch: %q", st.GetModeSlug())
	}
}

// TestUnknownModeIsRefused: NewTask and SetMode refuse a mode the workspace does not have.
func TestUnknownModeIsRefused(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{{Text: complete}}}, servertest.Options{})
	if _, err := e.Tasks.NewTask(context.Background(), &cairnv1.NewTaskRequest{Text: "x", WorkspaceRoots: []string{e.Workspace},
		ModeSlug: "nope"}); err == nil {
		t.Fatal("a task started in a mode that does not exist")
	}
	id := e.NewTask("x", "", act)
	if _, err := e.State.SetMode(context.Background(), &cairnv1.SetModeRequest{TaskId: id, ModeSlug: "nope"}); err == nil {
		t.Fatal("SetMode accepted a mode that does not exist")
	}
}

// TestOrchestratorDelegates: an orchestrator task gives one subtask to the docs mode and one
// to the reviewer mode through delegate; each subtask's summary reaches the parent's model,
// the chat shows both with their mode, status and transcript, and the request limit counts
// the requests of all three.
func TestOrchestratorDelegates(t *testing.T) {
	ws := t.TempDir()
	writeModes(t, ws, map[string]string{"docs.md": docsMode, "reviewer.md": reviewerMode})
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<delegate>\n<mode>docs</mode>\n<message>Write NOTES.md.</message>\n</delegate>",
			Expect: &llmtest.Expect{Contains: []string{"You are in the Orchestrator mode (orchestrator).", "## delegate"},
				NotContains: []string{"## write_to_file", "## execute_command"}}},
		{Text: "<write_to_file>\n<path>NOTES.md</path>\n<content>notes\n</content>\n</write_to_file>",
			Expect: &llmtest.Expect{Contains: []string{"You are in the Docs Writer mode (docs).", "Write NOTES.md."}, NotContains: []string{"## delegate"}}},
		{Text: "<attempt_completion>\n<result>Wrote NOTES.md.</result>\n</attempt_completion>"},
		{Text: "<delegate>\n<mode>reviewer</mode>\n<message>Review NOTES.md.</message>\n</delegate>",
			Expect: &llmtest.Expect{LastUserContains: []string{"Wrote NOTES.md."}}},
		{Text: "<attempt_completion>\n<result>NOTES.md looks right.</result>\n</attempt_completion>",
			Expect: &llmtest.Expect{Contains: []string{"You are in the Reviewer mode (reviewer)."}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"NOTES.md looks right."}}},
	}}, servertest.Options{Workspace: ws, Settings: func(s *config.Settings) {
		s.AutoApprove.YOLO = true
		s.TaskLimits.MaxRequests = 5
	}})
	id := newTaskIn(t, e, "write and review the notes", "orchestrator")
	w := e.Watch(id)
	defer w.Close()
	// Five requests: two of the parent's and three of its subtasks'; the parent's third
	// would be the sixth, past the limit.
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_TASK_LIMIT_REACHED)
	if n := len(e.LLM.Requests()); n != 5 {
		t.Fatalf("%d requests before the limit, want 5", n)
	}
	if st := w.State(); st.GetRequests() != 5 {
		t.Fatalf("the parent counted %d requests, want 5 (its own and its subtasks')", st.GetRequests())
	}
	e.Answer(id, approve, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_SUBAGENTS) {
		var row msg.Subagents
		if err := json.Unmarshal([]byte(m.GetText()), &row); err != nil || len(row.Children) != 1 {
			t.Fatalf("subagents row %q: %v", m.GetText(), err)
		}
		c := row.Children[0]
		var last string
		if n := len(c.Transcript); n > 0 {
			last = c.Transcript[n-1].Text
		}
		got = append(got, c.Mode+" "+string(c.Status)+" "+last)
		if c.Requests == 0 {
			t.Errorf("subtask %s shows no requests", c.Mode)
		}
	}
	want := "docs done Wrote NOTES.md.|reviewer done NOTES.md looks right."
	if strings.Join(got, "|") != want {
		t.Fatalf("subtask rows:\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "NOTES.md")); err != nil || string(b) != "notes\n" {
		t.Fatalf("NOTES.md: %q, %v", b, err)
	}
}

// TestListModes lists the built-in modes, the workspace's and the skipped files.
func TestListModes(t *testing.T) {
	ws := t.TempDir()
	writeModes(t, ws, map[string]string{"docs.md": docsMode, "bad.md": "---\ngroups: [fly]\n---\n"})
	e := servertest.Start(t, llmtest.Script{}, servertest.Options{Workspace: ws})
	resp, err := e.Files.ListModes(context.Background(), &cairnv1.ListModesRequest{WorkspaceRoots: []string{ws}})
	if err != nil {
		t.Fatal(err)
	}
	var slugs []string
	for _, m := range resp.GetModes() {
		slugs = append(slugs, m.GetSlug())
	}
	if strings.Join(slugs, ",") != "act,plan,orchestrator,docs" || len(resp.GetProblems()) != 1 ||
		!strings.Contains(resp.GetProblems()[0], `unknown group "fly"`) {
		t.Fatalf("modes %v, problems %v", slugs, resp.GetProblems())
	}
}
