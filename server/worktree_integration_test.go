package server_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// Tasks in worktrees (README, "Tasks in worktrees"): the real daemon, real git, the fake model.

// gitIn runs git in dir and returns its trimmed output.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// gitRepo makes a repository with greet.txt committed and returns its folder.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitOut(t, dir, "init", "-q", "-b", "main")
	gitOut(t, dir, "config", "user.name", "Test User")
	gitOut(t, dir, "config", "user.email", "user@example.invalid")
	if err := os.WriteFile(filepath.Join(dir, "greet.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitOut(t, dir, "add", "-A")
	gitOut(t, dir, "commit", "-q", "-m", "first")
	return dir
}

func readText(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func autoEdits(s *config.Settings) {
	s.AutoApprove.Enabled, s.AutoApprove.EditFiles, s.AutoApprove.AllCommands = true, true, true
}

func newWorktreeTask(t *testing.T, e *servertest.Env, text string) string {
	t.Helper()
	resp, err := e.Tasks.NewTask(context.Background(), &cairnv1.NewTaskRequest{Text: text, WorkspaceRoots: []string{e.Workspace},
		Mode: act, Worktree: true})
	if err != nil {
		t.Fatalf("NewTask: %v", err)
	}
	return resp.GetTaskId()
}

func listWorktrees(t *testing.T, e *servertest.Env) map[string]*cairnv1.WorktreeInfo {
	t.Helper()
	resp, err := e.Files.ListWorktrees(context.Background(), &cairnv1.ListWorktreesRequest{Repo: e.Workspace})
	if err != nil {
		t.Fatalf("ListWorktrees: %v", err)
	}
	out := map[string]*cairnv1.WorktreeInfo{}
	for _, w := range resp.GetWorktrees() {
		out[w.GetTaskId()] = w
	}
	return out
}

// Two tasks run at once, each in its own worktree, and write the same file differently (one
// through a command, which runs in the worktree). Each branch holds its own change and the
// user's tree is untouched; the board lists both; the first merges as uncommitted changes,
// the second then conflicts on the file, names it and changes nothing; discard removes the
// second's worktree, branch and folder.
func TestWorktreeTasksSideBySide(t *testing.T) {
	repo := gitRepo(t)
	e := servertest.Start(t, llmtest.Script{Routes: []llmtest.Route{
		{FirstUserContains: "task one", Turns: []llmtest.Turn{
			{Text: writeFile("greet.txt", "hello from one\n"), ChunkSize: 16, Delay: llmtest.Duration(time.Millisecond)},
			{Text: "<execute_command>\n<command>git rev-parse --abbrev-ref HEAD > branch.txt</command>\n<requires_approval>false</requires_approval>\n</execute_command>"},
			{Text: complete},
		}},
		{FirstUserContains: "task two", Turns: []llmtest.Turn{
			{Text: writeFile("greet.txt", "hello from two\n"), ChunkSize: 16, Delay: llmtest.Duration(time.Millisecond)},
			{Text: complete},
		}},
	}}, servertest.Options{Workspace: repo, Settings: autoEdits})
	one := newWorktreeTask(t, e, "task one: greet")
	two := newWorktreeTask(t, e, "task two: greet")
	w1, w2 := e.Watch(one), e.Watch(two)
	w1.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	w2.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	llmOK(t, e)

	board := listWorktrees(t, e)
	b1, b2 := board[one], board[two]
	if len(board) != 2 || b1 == nil || b2 == nil {
		t.Fatalf("board %v", board)
	}
	if b1.GetStatus() != "completed" || b2.GetStatus() != "completed" {
		t.Errorf("statuses %q %q", b1.GetStatus(), b2.GetStatus())
	}
	if !strings.HasPrefix(b1.GetBranch(), "cairn/task-one-greet-"+one) || b1.GetFilesChanged() != 2 || b1.GetLinesAdded() != 2 || b1.GetLinesRemoved() != 1 {
		t.Errorf("task one on the board: %v", b1)
	}
	if b2.GetFilesChanged() != 1 || b2.GetLinesAdded() != 1 || b2.GetLinesRemoved() != 1 {
		t.Errorf("task two on the board: %v", b2)
	}
	if b1.GetCostKnown() || b1.GetIncluded() {
		t.Errorf("the fake model has no prices, yet the board calls task one's cost known: %v", b1)
	}
	if !strings.HasPrefix(b1.GetPath(), e.DataDir) {
		t.Errorf("worktree %s is not under the data dir %s", b1.GetPath(), e.DataDir)
	}
	if got := readText(t, filepath.Join(b1.GetPath(), "greet.txt")); got != "hello from one\n" {
		t.Errorf("one's greet.txt %q", got)
	}
	if got := readText(t, filepath.Join(b2.GetPath(), "greet.txt")); got != "hello from two\n" {
		t.Errorf("two's greet.txt %q", got)
	}
	// The command ran in task one's worktree, on its branch.
	if got := strings.TrimSpace(readText(t, filepath.Join(b1.GetPath(), "branch.txt"))); got != b1.GetBranch() {
		t.Errorf("the command ran on branch %q, want %q", got, b1.GetBranch())
	}
	if got := readText(t, filepath.Join(repo, "greet.txt")); got != "hello\n" {
		t.Errorf("user's greet.txt %q", got)
	}
	if s := gitOut(t, repo, "status", "--porcelain"); s != "" {
		t.Errorf("user's tree changed: %q", s)
	}

	// Review: the changes against the base, shown in the editor as one multi-file diff.
	host := e.ConnectHost()
	changes, err := e.Files.GetWorktreeChanges(context.Background(), &cairnv1.GetWorktreeChangesRequest{TaskId: two,
		ShowInEditor: true, HostId: host.ID})
	if err != nil {
		t.Fatal(err)
	}
	if fs := changes.GetFiles(); len(fs) != 1 || fs[0].GetPath() != "greet.txt" || fs[0].GetBefore() != "hello\n" ||
		fs[0].GetStatus() != "M" || fs[0].GetWorktreePath() != filepath.Join(b2.GetPath(), "greet.txt") {
		t.Errorf("changes %v", fs)
	}
	if len(host.MultiDiffs) != 1 {
		t.Fatalf("%d multi-diffs shown, want 1", len(host.MultiDiffs))
	}
	if md := host.MultiDiffs[0]; len(md.GetFiles()) != 1 || md.GetFiles()[0].GetLeft() != "hello\n" ||
		md.GetFiles()[0].GetRight() != "hello from two\n" || !strings.Contains(md.GetTitle(), b2.GetBranch()) {
		t.Errorf("multi-diff %v", md)
	}

	ctx := context.Background()
	if _, err := e.Files.MergeWorktree(ctx, &cairnv1.MergeWorktreeRequest{TaskId: one}); err != nil {
		t.Fatalf("merge one: %v", err)
	}
	if got := readText(t, filepath.Join(repo, "greet.txt")); got != "hello from one\n" {
		t.Errorf("merged greet.txt %q", got)
	}
	if s := gitOut(t, repo, "status", "--porcelain"); s != "M greet.txt\n?? branch.txt" && s != " M greet.txt\n?? branch.txt" {
		t.Errorf("status after an uncommitted merge: %q", s)
	}
	before := readText(t, filepath.Join(repo, "greet.txt"))
	statusBefore := gitOut(t, repo, "status", "--porcelain")
	_, err = e.Files.MergeWorktree(ctx, &cairnv1.MergeWorktreeRequest{TaskId: two})
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "greet.txt") {
		t.Fatalf("conflicting merge: %v", err)
	}
	if readText(t, filepath.Join(repo, "greet.txt")) != before || gitOut(t, repo, "status", "--porcelain") != statusBefore {
		t.Error("a conflicting merge changed the user's tree")
	}

	if _, err := e.Files.DiscardWorktree(ctx, &cairnv1.DiscardWorktreeRequest{TaskId: two}); err != nil {
		t.Fatalf("discard: %v", err)
	}
	if _, err := os.Stat(filepath.Dir(b2.GetPath())); !os.IsNotExist(err) {
		t.Errorf("discarded folder: %v", err)
	}
	if out := gitOut(t, repo, "branch", "--list", b2.GetBranch()); out != "" {
		t.Errorf("discarded branch left: %q", out)
	}
	if out := gitOut(t, repo, "worktree", "list", "--porcelain"); strings.Contains(out, b2.GetPath()) {
		t.Errorf("discarded worktree still registered:\n%s", out)
	}
	if board := listWorktrees(t, e); len(board) != 1 || board[one] == nil {
		t.Errorf("board after discard: %v", board)
	}
}

// A worktree task in a folder that is not a git repository is refused with a clear message.
func TestWorktreeTaskOutsideGitIsRefused(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{}, servertest.Options{})
	_, err := e.Tasks.NewTask(context.Background(), &cairnv1.NewTaskRequest{Text: "x", WorkspaceRoots: []string{e.Workspace},
		Mode: act, Worktree: true})
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "start a normal task") {
		t.Fatalf("err %v", err)
	}
}

// A daemon stopped while a worktree task streams leaves the worktree; the next daemon on the
// data dir lists it (with the task's own change in it), and it can be discarded.
func TestWorktreeLeftByAStoppedDaemonIsListed(t *testing.T) {
	repo := gitRepo(t)
	dataDir := t.TempDir()
	fake := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("greet.txt", "half done\n")},
		{Text: strings.Repeat("still thinking ", 400), ChunkSize: 4, Delay: llmtest.Duration(10 * time.Millisecond)},
	}, OnEnd: &llmtest.Turn{Text: complete}})
	e := servertest.StartWith(t, fake, servertest.Options{Workspace: repo, DataDir: dataDir, Settings: autoEdits})
	id := newWorktreeTask(t, e, "long task")
	w := e.Watch(id)
	w.Until("the second request streams", func(msgs []*cairnv1.Message, _ *cairnv1.TaskState) bool {
		for _, m := range msgs {
			if strings.Contains(m.GetText(), "still thinking") {
				return true
			}
		}
		return false
	})
	// Discard is refused while the task runs.
	_, err := e.Files.DiscardWorktree(context.Background(), &cairnv1.DiscardWorktreeRequest{TaskId: id})
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "running") {
		t.Fatalf("discard of a running task: %v", err)
	}
	e.Stop()

	e2 := servertest.StartWith(t, fake, servertest.Options{Workspace: repo, DataDir: dataDir, Settings: autoEdits})
	board := listWorktrees(t, e2)
	b := board[id]
	if len(board) != 1 || b == nil || b.GetStatus() != "idle" || b.GetFilesChanged() != 1 {
		t.Fatalf("board after the restart: %v", board)
	}
	if got := readText(t, filepath.Join(b.GetPath(), "greet.txt")); got != "half done\n" {
		t.Errorf("worktree's greet.txt %q", got)
	}
	if _, err := e2.Files.DiscardWorktree(context.Background(), &cairnv1.DiscardWorktreeRequest{TaskId: id}); err != nil {
		t.Fatal(err)
	}
	if board := listWorktrees(t, e2); len(board) != 0 {
		t.Errorf("board after discard: %v", board)
	}
	if got := readText(t, filepath.Join(repo, "greet.txt")); got != "hello\n" {
		t.Errorf("user's greet.txt %q", got)
	}
}
