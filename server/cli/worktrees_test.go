package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/server/cli"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

func gitCLI(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// `cairn run --worktree`, then `cairn worktrees list --json`, merge and discard, each with a
// private daemon on one data dir, without a terminal.
func TestWorktreesCommand(t *testing.T) {
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<write_to_file>\n<path>notes.md</path>\n<content>\n# Notes\n</content>\n</write_to_file>"},
		{Text: completion},
		{Text: "<write_to_file>\n<path>other.md</path>\n<content>\nother\n</content>\n</write_to_file>"},
		{Text: completion},
	}})
	repo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitCLI(t, repo, "init", "-q")
	gitCLI(t, repo, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-q", "--allow-empty", "-m", "first")
	data := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CAIRN_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	cairn := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), args, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
		return code, out.String(), errb.String()
	}
	for _, task := range []string{"write notes", "write other"} {
		code, out, errs := cairn("run", "-C", repo, "--data-dir", data, "--base-url", srv.URL(), "--api-key", "k", "--model", "m",
			"--auto-approve", "edit", "--worktree", task)
		if code != 0 || !strings.Contains(errs, "on branch cairn/") {
			t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
		}
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cairn("worktrees", "-C", repo, "--data-dir", data, "list", "--json")
	if code != 0 {
		t.Fatalf("list: exit %d\n%s", code, errs)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 2 || lines[0]["files_changed"] != 1.0 || lines[0]["status"] != "completed" ||
		!strings.HasPrefix(lines[0]["branch"].(string), "cairn/write-notes-") {
		t.Fatalf("list --json:\n%s", out)
	}
	first, second := lines[0]["task_id"].(string), lines[1]["task_id"].(string)
	if _, err := os.Stat(filepath.Join(repo, "notes.md")); !os.IsNotExist(err) {
		t.Fatalf("the task wrote into the user's tree: %v", err)
	}

	if code, out, errs := cairn("worktrees", "-C", repo, "--data-dir", data, "merge", first); code != 0 || !strings.Contains(out, "notes.md") {
		t.Fatalf("merge: exit %d\n%s\n%s", code, out, errs)
	}
	if b, err := os.ReadFile(filepath.Join(repo, "notes.md")); err != nil || string(b) != "# Notes\n" {
		t.Fatalf("merged notes.md %q %v", b, err)
	}
	// A second merge says it was merged already; `list` inside a task's worktree lists the
	// repository's worktrees.
	if code, out, errs := cairn("worktrees", "--data-dir", data, "merge", first); code != 0 || !strings.Contains(out, "nothing new to merge") {
		t.Fatalf("second merge: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := cairn("worktrees", "-C", lines[1]["path"].(string), "--data-dir", data, "list"); code != 0 ||
		!strings.Contains(out, first) || !strings.Contains(out, second) {
		t.Fatalf("list inside a task's worktree: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := cairn("worktrees", "--data-dir", data, "discard", second); code != 2 || !strings.Contains(errs, "--yes") {
		t.Fatalf("discard without a terminal: exit %d\n%s", code, errs)
	}
	if code, out, errs := cairn("worktrees", "--data-dir", data, "discard", second, "--yes"); code != 0 {
		t.Fatalf("discard: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, _ = cairn("worktrees", "-C", repo, "--data-dir", data, "list")
	if code != 0 || strings.Contains(out, second) || !strings.Contains(out, first) || !strings.Contains(out, "merged") {
		t.Fatalf("list after discard:\n%s", out)
	}
	// The fake model has no prices: its cost is unknown, never "$0.0000".
	if strings.Contains(out, "$0.0000") || !strings.Contains(out, "price unknown") || lines[0]["cost_known"] != false {
		t.Errorf("an unpriced task's cost in the list:\n%s\n%v", out, lines[0])
	}
	if code, _, errs := cairn("worktrees", "--data-dir", data, "merge", "nope"); code != 1 || !strings.Contains(errs, "no worktree") {
		t.Fatalf("merge of an unknown task: exit %d\n%s", code, errs)
	}
	if code, _, _ := cairn("worktrees", "--data-dir", data, "frobnicate"); code != 2 {
		t.Fatalf("unknown subcommand: exit %d", code)
	}
}

// A worktree task that runs in another process (`cairn run --worktree … &` with its private
// daemon) is listed as running, and merge and discard refuse it with a way forward, keeping
// its worktree: the task's owner lock says it runs (README, "Tasks in worktrees").
func TestWorktreesRunningElsewhere(t *testing.T) {
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{{Text: "thinking", Fault: &llmtest.Fault{At: 1, Hang: true}}}})
	repo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitCLI(t, repo, "init", "-q")
	gitCLI(t, repo, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-q", "--allow-empty", "-m", "first")
	data := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CAIRN_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	cairn := func(ctx context.Context, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := cli.Run(ctx, args, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
		return code, out.String(), errb.String()
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		cairn(ctx, "run", "-C", repo, "--data-dir", data, "--base-url", srv.URL(), "--api-key", "k", "--model", "m", "--worktree", "hang on")
	}()
	defer func() { cancel(); <-done }()
	var id string
	for deadline := time.Now().Add(20 * time.Second); id == "" && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if len(srv.Requests()) == 0 {
			continue
		}
		recs, _ := filepath.Glob(filepath.Join(data, "worktrees", "*.json"))
		if len(recs) == 1 {
			id = strings.TrimSuffix(filepath.Base(recs[0]), ".json")
		}
	}
	if id == "" {
		t.Fatal("the task never started")
	}
	bg := context.Background()
	code, out, errs := cairn(bg, "worktrees", "-C", repo, "--data-dir", data, "list", "--json")
	if code != 0 || !strings.Contains(out, `"status":"running"`) {
		t.Fatalf("list --json of a task running in another process: exit %d\n%s\n%s", code, out, errs)
	}
	for _, sub := range [][]string{{"discard", id, "--yes"}, {"merge", id}} {
		code, out, errs := cairn(bg, append([]string{"worktrees", "--data-dir", data}, sub...)...)
		if code == 0 || !strings.Contains(errs, "running") || !strings.Contains(errs, "stop that run first") {
			t.Errorf("%s of a running task: exit %d\n%s\n%s", sub[0], code, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(data, "worktrees", id)); err != nil {
		t.Fatalf("the running task's worktree is gone: %v", err)
	}
}

// `cairn run --worktree -C repo/sub` roots the task at sub inside its worktree, so a file it
// writes as pkg/new.txt lands in repo/sub/pkg/new.txt when merged (README, "Tasks in worktrees").
func TestWorktreeKeepsTheSubfolder(t *testing.T) {
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<write_to_file>\n<path>pkg/new.txt</path>\n<content>\nnew\n</content>\n</write_to_file>"},
		{Text: completion},
	}})
	repo, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitCLI(t, repo, "init", "-q")
	if err := os.MkdirAll(filepath.Join(repo, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "sub", "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitCLI(t, repo, "add", "-A")
	gitCLI(t, repo, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-q", "-m", "first")
	data := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CAIRN_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	cairn := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), args, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
		return code, out.String(), errb.String()
	}
	code, out, errs := cairn("run", "-C", filepath.Join(repo, "sub"), "--data-dir", data, "--base-url", srv.URL(), "--api-key", "k",
		"--model", "m", "--auto-approve", "edit", "--worktree", "add a file")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errs)
	}
	recs, _ := filepath.Glob(filepath.Join(data, "worktrees", "*.json"))
	if len(recs) != 1 {
		t.Fatalf("records %v", recs)
	}
	id := strings.TrimSuffix(filepath.Base(recs[0]), ".json")
	if code, out, errs := cairn("worktrees", "--data-dir", data, "merge", id); code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, out, errs)
	}
	if b, err := os.ReadFile(filepath.Join(repo, "sub", "pkg", "new.txt")); err != nil || string(b) != "new\n" {
		t.Fatalf("sub/pkg/new.txt after the merge: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(repo, "pkg")); !os.IsNotExist(err) {
		t.Fatalf("the task wrote at the repository's top: %v", err)
	}
}
