package server_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// A reply that ends early never runs its unfinished tool call (issue: cut-off replies). Every
// tool is cut at several points with finish_reason "length", and once more by a reply that
// ends normally without the closing tag; everything is auto-approved (YOLO), so a call that
// wrongly ran would change the workspace. The workspace must be byte-identical afterwards, no
// diff view may stay open, and the next request must tell the model why.

const tenLines = "line 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\nline 10\n"

// cutTools are complete tool calls; each is cut inside itself.
var cutTools = []struct{ name, tool, text string }{
	{"execute_command", "execute_command", "Running it.\n<execute_command>\n<command>touch cut_command_ran</command>\n<requires_approval>false</requires_approval>\n</execute_command>"},
	{"read_file", "read_file", "<read_file>\n<path>keep.txt</path>\n</read_file>"},
	{"write_to_file existing", "write_to_file", writeFile("keep.txt", "short\nfile\n")},
	{"write_to_file new", "write_to_file", writeFile("fresh/dir/new.txt", "brand new\ncontent here\n")},
	{"replace_in_file", "replace_in_file", replaceIn("keep.txt", sr("line 3\n", "LINE THREE\n")+sr("line 9\n", "LINE NINE\n"))},
	{"search_files", "search_files", "<search_files>\n<path>.</path>\n<regex>line</regex>\n</search_files>"},
	{"list_files", "list_files", "<list_files>\n<path>.</path>\n<recursive>true</recursive>\n</list_files>"},
	{"list_code_definition_names", "list_code_definition_names", "<list_code_definition_names>\n<path>.</path>\n</list_code_definition_names>"},
	{"ask_followup_question", "ask_followup_question", "<ask_followup_question>\n<question>Which file should I change?</question>\n</ask_followup_question>"},
	{"attempt_completion", "attempt_completion", "<attempt_completion>\n<result>All finished.</result>\n<command>touch cut_command_ran</command>\n</attempt_completion>"},
	{"plan_mode_respond", "plan_mode_respond", "<plan_mode_respond>\n<response>Here is the plan.</response>\n</plan_mode_respond>"},
	{"new_task", "new_task", "<new_task>\n<context>Carry on with the rest.</context>\n</new_task>"},
	{"condense", "condense", "<condense>\n<context>A summary of the work so far.</context>\n</condense>"},
}

type cutPoint struct {
	name   string
	at     int
	finish string
}

// cutPoints are the places a reply is cut: right after the opening tag, inside the body, just
// before the closing tag and inside it (all at the output limit), and a reply that ends
// "normally" just before the closing tag.
func cutPoints(text, tool string) []cutPoint {
	open := strings.Index(text, "<"+tool+">") + len(tool) + 3
	closing := strings.LastIndex(text, "</"+tool+">")
	return []cutPoint{
		{"after opening tag", open, "length"},
		{"inside body", (open + closing) / 2, "length"},
		{"before closing tag", closing, "length"},
		{"inside closing tag", closing + 4, "length"},
		{"stop without closing tag", closing, "stop"},
	}
}

// snapshot maps every path under root to its mode and content.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		v := info.Mode().String()
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		out[rel] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, before, after map[string]string) {
	t.Helper()
	for p, v := range before {
		if after[p] != v {
			t.Errorf("%s changed: %q → %q", p, v, after[p])
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s was created", p)
		}
	}
}

func yolo(s *config.Settings) { s.AutoApprove.YOLO = true }

func TestCutOffReplyNeverRuns(t *testing.T) {
	cases := 0
	for _, tc := range cutTools {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			points := cutPoints(tc.text, tc.tool)
			var turns []llmtest.Turn
			for _, cp := range points {
				note := []string{"[" + tc.tool + "] Not run", "nothing was executed or changed", "replace_in_file"}
				if cp.finish == "length" {
					note = append(note, "cut off at the output-token limit")
				} else {
					note = append(note, "ended before the tool call was closed")
				}
				turns = append(turns,
					llmtest.Turn{Text: tc.text[:cp.at], ChunkSize: 7, FinishReason: cp.finish},
					llmtest.Turn{Text: complete, Expect: &llmtest.Expect{LastUserContains: note,
						LastUserNotContains: []string{"] Result:"}}})
			}
			e := servertest.Start(t, llmtest.Script{Turns: turns}, servertest.Options{Settings: yolo})
			seed(t, e, "keep.txt", tenLines, 0o644)
			seed(t, e, "code/main.go", goFile, 0o600)
			host := e.ConnectHost()
			for i, cp := range points {
				before := snapshot(t, e.Workspace)
				id := e.NewTask(fmt.Sprintf("cut %d", i), host.ID, act)
				w := e.Watch(id)
				w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
				msgs := w.Messages()
				w.Close()
				sameTree(t, before, snapshot(t, e.Workspace))
				rows := servertest.Find(msgs, cairnv1.SayKind_SAY_KIND_ERROR)
				want := "was not run"
				if len(rows) != 1 || !strings.Contains(rows[0].GetText(), want) ||
					cp.finish == "length" && !strings.Contains(rows[0].GetText(), "cut off at the model's output limit") {
					t.Errorf("%s: want one error row saying the call %s, got %v", cp.name, want, rows)
				}
				for _, m := range msgs {
					if m.GetSay() == cairnv1.SayKind_SAY_KIND_TOOL || m.GetSay() == cairnv1.SayKind_SAY_KIND_COMMAND ||
						m.GetAsk() == cairnv1.AskKind_ASK_KIND_TOOL || m.GetAsk() == cairnv1.AskKind_ASK_KIND_FOLLOWUP {
						t.Errorf("%s: the unfinished call was shown as run or approvable: %v", cp.name, m)
					}
				}
				if opened, saved, reverted := host.Counts(); saved != 0 || opened != reverted {
					t.Errorf("%s: diff views opened=%d saved=%d reverted=%d", cp.name, opened, saved, reverted)
				}
				if got := len(e.LLM.Requests()); got != 2*(i+1) {
					t.Fatalf("%s: %d model requests, want %d", cp.name, got, 2*(i+1))
				}
			}
			llmOK(t, e)
		})
		cases += len(cutPoints(tc.text, tc.tool))
	}
	t.Logf("%d tools × cut points = %d cases", len(cutTools), cases)
}

// A stream that breaks inside a tool call is retried from the start; what the partial call
// previewed is undone first, and nothing of it runs.
func TestBrokenStreamInsideToolNeverRuns(t *testing.T) {
	for _, tc := range cutTools[:5] {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			at := strings.LastIndex(tc.text, "</"+tc.tool+">") - 3
			e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
				{Text: tc.text, ChunkSize: 5, Fault: &llmtest.Fault{Cut: true, At: at}},
				{Text: complete},
			}}, servertest.Options{Settings: yolo})
			seed(t, e, "keep.txt", tenLines, 0o644)
			host := e.ConnectHost()
			before := snapshot(t, e.Workspace)
			id := e.NewTask("break", host.ID, act)
			w := e.Watch(id)
			w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
			sameTree(t, before, snapshot(t, e.Workspace))
			if opened, saved, reverted := host.Counts(); saved != 0 || opened != reverted {
				t.Errorf("diff views opened=%d saved=%d reverted=%d", opened, saved, reverted)
			}
			if n := len(servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_ERROR_RETRY)); n != 1 {
				t.Errorf("%d retry rows, want 1", n)
			}
		})
	}
}

// PLAN mode never touches the disk or the editor: a streamed write_to_file opens no diff view
// and creates nothing (not even the new file's folder), and the chat shows a refused row.
func TestPlanModeWriteOpensNoDiff(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("plan/dir/new.txt", strings.Repeat("planned line\n", 50)), ChunkSize: 16},
		{Text: writeFile("keep.txt", "rewritten\n"), ChunkSize: 16,
			Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'plan/dir/new.txt'] Result:", "PLAN MODE"}}},
		{Text: "<plan_mode_respond>\n<response>Here is the plan.</response>\n</plan_mode_respond>",
			Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'keep.txt'] Result:", "PLAN MODE"}}},
	}}, servertest.Options{Settings: yolo})
	seed(t, e, "keep.txt", tenLines, 0o644)
	host := e.ConnectHost()
	before := snapshot(t, e.Workspace)
	id := e.NewTask("plan it", host.ID, plan)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_PLAN_MODE_RESPOND)
	sameTree(t, before, snapshot(t, e.Workspace))
	if opened, _, _ := host.Counts(); opened != 0 {
		t.Errorf("PLAN mode opened %d diff views", opened)
	}
	rows := servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_INFO)
	if len(rows) != 2 || !strings.Contains(rows[0].GetText(), "Refused in PLAN mode: write_to_file plan/dir/new.txt") {
		t.Errorf("want two refused rows, got %v", rows)
	}
	for _, m := range w.Messages() {
		if m.GetSay() == cairnv1.SayKind_SAY_KIND_TOOL || m.GetAsk() == cairnv1.AskKind_ASK_KIND_TOOL {
			t.Errorf("a refused edit was shown as an edit: %v", m)
		}
	}
	llmOK(t, e)
}

// Only the first tool call of a message runs, and the model is told the others did not.
func TestExtraToolCallsAreReported(t *testing.T) {
	two := "<read_file>\n<path>keep.txt</path>\n</read_file>\n\n<execute_command>\n<command>touch second_ran</command>\n" +
		"<requires_approval>false</requires_approval>\n</execute_command>"
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: two, ChunkSize: 9},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"[read_file for 'keep.txt'] Result:", "line 10",
			"later tool calls in your last message were not run"}}},
	}}, servertest.Options{Settings: yolo})
	seed(t, e, "keep.txt", tenLines, 0o644)
	id := e.NewTask("read", "", act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if _, err := os.Stat(filepath.Join(e.Workspace, "second_ran")); !os.IsNotExist(err) {
		t.Fatalf("the second tool call ran: %v", err)
	}
	llmOK(t, e)
}
