package task

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/edit"
	"github.com/cairnhq/cairn/core/tools/readfile"
	"github.com/cairnhq/cairn/core/tools/shell"
)

// No size ends a run: 50 MB of command output and a 20 MB file complete, the task's log grows
// by the bounded view and the file's content once, the whole output can be read back by
// range, and the task opens again afterwards.
func TestHugeOutputAndWriteKeepTheLogSmall(t *testing.T) {
	var body strings.Builder
	for body.Len() < 20<<20 {
		body.WriteString("a line of a large generated file, long enough to add up quickly\n")
	}
	script := llmtest.Script{Turns: []llmtest.Turn{
		// seq prints 50.9 MB.
		{Text: "<execute_command>\n<command>" + printCommand(t, 6500000) + "</command>\n<requires_approval>false</requires_approval>\n</execute_command>"},
		{Text: "<write_to_file>\n<path>big.txt</path>\n<content>\n" + body.String() + "</content>\n</write_to_file>", ChunkSize: 1 << 16},
		{Text: completion},
	}}
	reg := shell.NewRegistry()
	// Where no command sandbox can be set up (Windows), every command asks unless the user
	// turns the sandbox off (docs/sandbox.md, "Fail closed"): this test is about sizes, so it
	// does that there.
	reg.SetSandbox(shell.SandboxConfig{Off: !sandbox.Probe().Available})
	r := newRig(t, script, shell.New(reg), edit.NewWrite(), readfile.New())
	r.settings = func(s *config.Settings) { s.AutoApprove.Enabled, s.AutoApprove.YOLO = true, true }
	tk := r.newTask("print numbers, then write a big file")
	// 70 MB take a while under the race detector; waitAsk's bound is for small tasks. The
	// bound only guards against a hang.
	for deadline := time.Now().Add(3 * time.Minute); tk.OpenAsk() != msg.AskCompletionResult; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no completion after 3 minutes; open ask %q", tk.OpenAsk())
		}
	}

	dir := scratchDir(tk.conv.Dir())
	taskDir := filepath.Dir(dir)
	size := func(name string) int64 {
		st, err := os.Stat(filepath.Join(taskDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return st.Size()
	}
	msgs, api := size("messages.log"), size("api.log")
	t.Logf("after 50 MB of output and a 20 MB write: messages.log %d bytes, api.log %d bytes", msgs, api)
	// The file's content is in each log once (the approval row; the model's message): the
	// row written again with its outcome keeps only its head. All the rest, the command's
	// rows included, must stay within a few hundred KB.
	// New files are CRLF on Windows: the content saved is longer by a byte a line there.
	content := newFileBody(body.String())
	if extra := msgs - int64(len(content)); extra > 1<<20 {
		t.Errorf("messages.log has %d bytes besides the file's content", extra)
	}
	if extra := api - int64(len(content)); extra > 1<<20 {
		t.Errorf("api.log has %d bytes besides the file's content", extra)
	}

	// The model was told where the whole output is, and can read any range of it.
	var result string
	for _, m := range tk.Messages() {
		if m.Type == msg.Say && m.Kind == msg.SayCommandOutput {
			result = m.Text
		}
	}
	path := regexp.MustCompile(`saved in (\S+):`).FindStringSubmatch(result)
	if path == nil || !strings.HasPrefix(path[1], dir+string(filepath.Separator)) {
		t.Fatalf("no saved output in the scratch folder %s named in:\n%.600s", dir, result)
	}
	if st, err := os.Stat(path[1]); err != nil || st.Size() < 50_000_000 {
		t.Fatalf("saved output: %v, %v", st, err)
	}
	res, err := readfile.New().Run(context.Background(), (&runLoop{parts: tk.parts}).env(), tools.Call{Name: readfile.Name,
		Params: map[string]string{"path": path[1], "start_line": "3000000", "end_line": "3000002"}})
	if err != nil || res.IsError || !strings.Contains(res.Text, "3000000\n") || !strings.Contains(res.Text, "3000002") {
		t.Fatalf("read_file of the saved output = %+v, %v", res, err)
	}
	if got, err := os.ReadFile(filepath.Join(r.root, "big.txt")); err != nil || len(got) != len(content) {
		t.Fatalf("big.txt: %d bytes, %v", len(got), err)
	}

	// The task opens again from its files.
	id, n := tk.ID(), len(tk.Messages())
	r.mgr.Clear(context.Background(), id)
	again, err := r.mgr.Open(context.Background(), id, "")
	if err != nil {
		t.Fatal(err)
	}
	// read_file above added a row after the completion question, so the task is not
	// complete any more: it asks to resume.
	waitAsk(t, again, msg.AskResumeTask)
	if got := len(again.Messages()); got < n {
		t.Errorf("reopened with %d messages, had %d", got, n)
	}
}
