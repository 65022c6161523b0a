package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/server"
	"github.com/cairnhq/cairn/server/cli"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

const completion = "<attempt_completion>\n<result>All done.</result>\n</attempt_completion>"

// runCLI runs `cairn run` without a terminal against a scripted model, in a folder of its
// own unless args start with -C.
func runCLI(t *testing.T, script llmtest.Script, args ...string) (code int, stdout, stderr string, ws string) {
	t.Helper()
	srv := llmtest.New(t, script)
	ws = t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CAIRN_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	var out, errb bytes.Buffer
	full := append([]string{"run", "-C", ws, "--data-dir", t.TempDir(), "--base-url", srv.URL(), "--api-key", "k", "--model", "m"}, args...)
	if len(args) > 0 && args[0] == "-C" {
		full = append(full[:1], full[3:]...) // the test's own folders are the roots
	}
	code = cli.Run(context.Background(), full, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	if err := srv.Err(); err != nil {
		t.Error(err)
	}
	return code, out.String(), errb.String(), ws
}

func TestRunCompletesWithAutoApprove(t *testing.T) {
	code, out, errs, ws := runCLI(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "Creating it.\n<write_to_file>\n<path>notes.md</path>\n<content>\n# Notes\n</content>\n</write_to_file>", ChunkSize: 6},
		{Text: completion, Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'notes.md'] Result:"}}},
	}}, "--auto-approve", "edit", "write notes")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, want := range []string{"Creating it.", "create notes.md", "All done."} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if b, err := os.ReadFile(filepath.Join(ws, "notes.md")); err != nil || string(b) != "# Notes\n" {
		t.Fatalf("notes.md = %q, %v", b, err)
	}
}

func TestRunWithoutTTYDeniesAndExplains(t *testing.T) {
	code, out, errs, ws := runCLI(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<write_to_file>\n<path>x.txt</path>\n<content>\nx\n</content>\n</write_to_file>"},
		{Text: completion, Expect: &llmtest.Expect{LastUserContains: []string{"denied"}}},
	}}, "write x")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "--auto-approve edit") {
		t.Fatalf("stderr does not name the flag:\n%s", errs)
	}
	if _, err := os.Stat(filepath.Join(ws, "x.txt")); !os.IsNotExist(err) {
		t.Fatalf("x.txt was written without approval: %v", err)
	}
}

func TestRunQuestionWithoutTTYExits3(t *testing.T) {
	code, out, errs, _ := runCLI(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<ask_followup_question>\n<question>Which database?</question>\n<options>[\"sqlite\", \"postgres\"]</options>\n</ask_followup_question>"},
	}}, "set up storage")
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "Which database?") || !strings.Contains(out, "postgres") {
		t.Fatalf("question not printed:\n%s", out)
	}
}

func TestRunJSONEvents(t *testing.T) {
	code, out, errs, _ := runCLI(t, llmtest.Script{Turns: []llmtest.Turn{{Text: "Thinking out loud.\n" + completion, ChunkSize: 4}}},
		"--json", "finish")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	kinds := map[string]bool{}
	for _, l := range lines {
		var ev map[string]json.RawMessage
		if err := json.Unmarshal([]byte(l), &ev); err != nil {
			t.Fatalf("not one JSON event per line: %q: %v", l, err)
		}
		for k := range ev {
			kinds[k] = true
		}
	}
	for _, k := range []string{"snapshot", "message_added", "text_appended", "state_changed"} {
		if !kinds[k] {
			t.Errorf("no %s event in --json output", k)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	var out, errb bytes.Buffer
	io := cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb}
	for _, args := range [][]string{{}, {"nope"}, {"run"}, {"run", "--mode", "fast", "x"}, {"debug"}} {
		if code := cli.Run(context.Background(), args, io); code != 2 {
			t.Errorf("cairn %v: exit %d, want 2", args, code)
		}
	}
}

func TestDebugParseChunksMatchesWhole(t *testing.T) {
	text := "Hi <b>there</b>\n<write_to_file>\n<path>a</path>\n<content>\nx </content> y\n</content>\n</write_to_file>"
	whole := debugParse(t, text, false)
	var chunks []string
	for i := 0; i < len(text); i += 3 {
		chunks = append(chunks, text[i:min(i+3, len(text))])
	}
	js, _ := json.Marshal(chunks)
	if got := debugParse(t, string(js), true); got != whole {
		t.Fatalf("chunked:\n%s\nwhole:\n%s", got, whole)
	}
	if !strings.Contains(whole, `"content": "x </content> y"`) {
		t.Fatalf("content with its own closing tag lost:\n%s", whole)
	}
}

func debugParse(t *testing.T, in string, chunks bool) string {
	t.Helper()
	args := []string{"debug", "parse"}
	if chunks {
		args = append(args, "--chunks")
	}
	var out, errb bytes.Buffer
	if code := cli.Run(context.Background(), args, cli.IO{In: strings.NewReader(in), Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	return out.String()
}

// An edit that cannot be applied is said on stderr with what it means for the file: the run
// goes on, and the file is byte-identical.
func TestRunSaysAFailedEdit(t *testing.T) {
	code, out, errs, ws := runCLI(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<write_to_file>\n<path>a.txt</path>\n<content>\none\n</content>\n</write_to_file>"},
		{Text: "<replace_in_file>\n<path>a.txt</path>\n<diff>\n------- SEARCH\ntwo\n=======\nthree\n+++++++ REPLACE\n</diff>\n</replace_in_file>"},
		{Text: completion},
	}}, "--auto-approve", "edit", "edit a")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "error: the edit of a.txt could not be applied; the file is unchanged") {
		t.Errorf("stderr does not say the edit failed:\n%s", errs)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "a.txt")); err != nil || string(b) != "one\n" {
		t.Fatalf("a.txt = %q, %v", b, err)
	}
}

// The model's <thinking> section is shown as thinking, labelled and without its tags, even when
// the tags arrive split across deltas; the output is not a terminal, so it is not dimmed.
func TestRunShowsThinkingLabelled(t *testing.T) {
	code, out, errs, _ := runCLI(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<thinking>\nplan the notes\n</thinking>\n\nNothing to write.\n" + completion, ChunkSize: 4},
	}}, "think first")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if strings.Contains(out, "thinking>") || strings.Contains(out, "\x1b[") {
		t.Errorf("stdout shows the tags or escapes:\n%q", out)
	}
	if !strings.Contains(out, "thinking: plan the notes\nNothing to write.") {
		t.Errorf("stdout lacks the labelled thinking:\n%s", out)
	}
}

// Several -C make several workspace roots: the task writes in the second one by its name
// (README, "Using it from the command line"), and a command that works in one folder
// refuses a second -C instead of using one silently.
func TestRunSeveralRoots(t *testing.T) {
	ws, other := t.TempDir(), filepath.Join(t.TempDir(), "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs, _ := runCLI(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<write_to_file>\n<path>other:y.txt</path>\n<content>\ny\n</content>\n</write_to_file>"},
		{Text: "<write_to_file>\n<path>x.txt</path>\n<content>\nx\n</content>\n</write_to_file>"},
		{Text: completion, Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'x.txt'] Result:"}}},
	}}, "-C", ws, "-C", other, "--auto-approve", "edit", "write y")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	if b, err := os.ReadFile(filepath.Join(other, "y.txt")); err != nil || string(b) != "y\n" {
		t.Fatalf("other/y.txt = %q, %v (first root has %v)", b, err, ls(ws))
	}
	if b, err := os.ReadFile(filepath.Join(ws, "x.txt")); err != nil || string(b) != "x\n" {
		t.Fatalf("x.txt in the first root = %q, %v (second root has %v)", b, err, ls(other))
	}
	var errb bytes.Buffer
	if code := cli.Run(context.Background(), []string{"worktrees", "-C", ws, "-C", other, "list"},
		cli.IO{In: strings.NewReader(""), Out: &bytes.Buffer{}, Err: &errb}); code != 2 || !strings.Contains(errb.String(), "give -C once") {
		t.Fatalf("worktrees with two -C: exit %d\n%s", code, errb.String())
	}
}

func ls(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// An interrupted run (SIGINT, SIGTERM: its context ends) says which background commands the
// cancelled task stops with it (README, "Commands that keep running").
func TestInterruptedRunNamesStoppedCommands(t *testing.T) {
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<execute_command>\n<command>echo up; exec sleep 60</command>\n<requires_approval>false</requires_approval>\n" +
			"<background>true</background>\n</execute_command>"},
		{Text: "thinking", Fault: &llmtest.Fault{At: 1, Hang: true}},
	}})
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CAIRN_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb bytes.Buffer
	done := make(chan int)
	go func() {
		done <- cli.Run(ctx, []string{"run", "-C", t.TempDir(), "--data-dir", t.TempDir(), "--base-url", srv.URL(), "--api-key", "k",
			"--model", "m", "--yolo", "serve"}, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	}()
	for deadline := time.Now().Add(20 * time.Second); len(srv.Requests()) < 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
	}
	time.Sleep(200 * time.Millisecond) // the note of command 1 reaches this client meanwhile
	cancel()
	if code := <-done; code == 0 {
		t.Fatalf("interrupted run: exit 0")
	}
	if !strings.Contains(errb.String(), "note: Stopped command 1 as the run was interrupted: echo up; exec sleep 60") {
		t.Fatalf("no note of the stopped command:\n%s\n%s", out.String(), errb.String())
	}
}

// TestRunNotesWhatThePolicyRefused: a setting of config.json that a managed switch refuses
// (here sandboxNetwork under "networkAllowed": false from the editor's managed setting) does not
// stop cairn run, as the flag would: the task's note saying so, naming the policy, prints on
// stderr like the other notes.
func TestRunNotesWhatThePolicyRefused(t *testing.T) {
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{{Text: completion}}})
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("CAIRN_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv(server.ManagedPolicyEnv, `{"networkAllowed": false}`)
	if err := os.MkdirAll(filepath.Join(cfg, "cairn"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "cairn", "config.json"), []byte(`{"sandboxNetwork": true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	args := []string{"run", "-C", t.TempDir(), "--data-dir", t.TempDir(), "--base-url", srv.URL(), "--api-key", "k", "--model", "m", "say done"}
	if code := cli.Run(context.Background(), args, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	want := "note: The network for auto-approved commands (sandboxNetwork, --network) is refused: the managed policy the editor setting cairn.managedPolicy keeps auto-approved commands off the network"
	if got := strings.Count(errb.String(), want); got != 1 {
		t.Errorf("stderr has the note %d times, want once:\n%s", got, errb.String())
	}
}
