package cli_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/server/cli"
)

// `cairn fork` from a shell (docs/cli.md, "cairn fork"): --list names the messages that have a
// checkpoint; --at N starts a new task in a worktree of its own whose file is as it was at
// that message, while the original's folder and conversation stay as they were; a message
// without a checkpoint exits 1 with the reason.
func TestForkCommand(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"config", "user.name", "T"}, {"config", "user.email", "t@example.invalid"},
		{"commit", "-q", "--allow-empty", "-m", "start"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	data := t.TempDir()
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<write_to_file>\n<path>notes.txt</path>\n<content>\nfirst\n</content>\n</write_to_file>"},
		{Text: "<write_to_file>\n<path>notes.txt</path>\n<content>\nsecond\n</content>\n</write_to_file>"},
		{Text: completion},
	}})
	// The endpoint as a user sets it once in the environment: fork's private daemon needs it too.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CAIRN_BASE_URL", srv.URL())
	t.Setenv("CAIRN_API_KEY", "k")
	t.Setenv("CAIRN_MODEL", "m")
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), args, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
		return code, out.String(), errb.String()
	}
	if code, out, errs := run("run", "-C", ws, "--data-dir", data, "--auto-approve", "edit", "write the notes twice"); code != 0 {
		t.Fatalf("cairn run: exit %d\n%s\n%s", code, out, errs)
	}
	st, err := store.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	metas, err := st.List()
	if err != nil || len(metas) != 1 {
		t.Fatalf("history: %v, %v", metas, err)
	}
	id := metas[0].ID
	before, err := st.Read(id)
	if err != nil {
		t.Fatal(err)
	}

	code, list, errs := run("fork", "--data-dir", data, id, "--list")
	if code != 0 {
		t.Fatalf("--list: exit %d\n%s", code, errs)
	}
	// The first write's row: its checkpoint holds notes.txt as "first".
	var at string
	for _, line := range strings.Split(list, "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[2] == "tool" && at == "" {
			at = f[0]
		}
	}
	if at == "" {
		t.Fatalf("--list names no tool row:\n%s", list)
	}
	code, out, errs := run("fork", "--data-dir", data, id, "--at", at)
	if code != 0 {
		t.Fatalf("--at %s: exit %d\n%s\n%s", at, code, out, errs)
	}
	f := strings.Split(strings.TrimSpace(out), "\t")
	if len(f) != 3 || f[1] == ws || !strings.HasPrefix(f[2], "from checkpoint ") {
		t.Fatalf("--at printed %q, want the new task's id, its own folder and the checkpoint", out)
	}
	if b, err := os.ReadFile(filepath.Join(f[1], "notes.txt")); err != nil || string(b) != "first\n" {
		t.Errorf("the fork's notes.txt = %q, %v; want the first version", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "notes.txt")); err != nil || string(b) != "second\n" {
		t.Errorf("the original's notes.txt = %q, %v; want it untouched", b, err)
	}
	after, err := st.Read(id)
	if err != nil || len(after.Messages) != len(before.Messages) {
		t.Errorf("the original's conversation changed: %d rows, then %d (%v)", len(before.Messages), len(after.Messages), err)
	}

	if code, _, errs := run("fork", "--data-dir", data, id, "--at", "0"); code != 1 || errs == "" {
		t.Errorf("a message without a checkpoint: exit %d, %q", code, errs)
	}
}
