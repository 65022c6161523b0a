package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/agent"
	"github.com/cairnhq/cairn/core/checkpoint"
	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// A task in a workspace that is a git repository: a checkpoint row at the first request and
// one after the edit; compare shows the edit, restore undoes it, and the user's .git is not
// touched.
func TestCheckpointsDuringTask(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("notes/new.txt", "fresh\n")},
		{Text: complete},
	}}, servertest.Options{})
	seed(t, e, "main.go", goFile, 0o644)
	gitIn(t, e.Workspace, "init", "-q")
	gitIn(t, e.Workspace, "add", "-A")
	gitIn(t, e.Workspace, "commit", "-q", "-m", "init")
	before := dirHash(t, filepath.Join(e.Workspace, ".git"))

	host := e.ConnectHost()
	id := e.NewTask("write a note", host.ID, act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	e.Answer(id, approve, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	llmOK(t, e)

	rows := servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_CHECKPOINT_CREATED)
	if len(rows) != 2 {
		t.Fatalf("%d checkpoint rows, want 2 (first request, after the edit)", len(rows))
	}
	c1, c2 := rows[0].GetCheckpoint().GetHash(), rows[1].GetCheckpoint().GetHash()
	if c1 == "" || c1 == c2 {
		t.Fatalf("checkpoint hashes %q, %q", c1, c2)
	}
	ctx := context.Background()
	diffs, err := agent.CompareCheckpoints(ctx, e.DataDir, e.Workspace, c1, c2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []checkpoint.FileDiff{{Path: "notes/new.txt", After: "fresh\n"}}; !reflect.DeepEqual(diffs, want) {
		t.Fatalf("compare = %q, want %q", diffs, want)
	}
	if _, err := agent.RestoreCheckpointFiles(ctx, e.DataDir, e.Workspace, c1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e.Workspace, "notes", "new.txt")); err == nil {
		t.Fatal("restore kept the file the task created")
	}
	sameFile(t, filepath.Join(e.Workspace, "main.go"), goFile, 0o644)
	if dirHash(t, filepath.Join(e.Workspace, ".git")) != before {
		t.Fatal("the workspace's .git folder changed")
	}
}

func TestCheckpointsOff(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("new.txt", "x\n")},
		{Text: complete},
	}}, servertest.Options{Settings: func(s *config.Settings) { s.CheckpointsEnabled = false }})
	host := e.ConnectHost()
	id := e.NewTask("write", host.ID, act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	e.Answer(id, approve, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if rows := servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_CHECKPOINT_CREATED); len(rows) != 0 {
		t.Fatalf("%d checkpoint rows with checkpoints off", len(rows))
	}
	if _, err := os.Stat(filepath.Join(e.DataDir, "checkpoints")); err == nil {
		t.Fatal("a shadow repository was created with checkpoints off")
	}
}

// A refused workspace (home) shows one error row and the task carries on.
func TestCheckpointsRefusedShowError(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("new.txt", "x\n")},
		{Text: complete},
	}}, servertest.Options{Workspace: home})
	host := e.ConnectHost()
	id := e.NewTask("write", host.ID, act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
	e.Answer(id, approve, "")
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	var errs []string
	for _, m := range servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_ERROR) {
		errs = append(errs, m.GetText())
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "home, Desktop, Documents or Downloads") {
		t.Fatalf("error rows = %q, want one refusal", errs)
	}
	if rows := servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_CHECKPOINT_CREATED); len(rows) != 0 {
		t.Fatalf("%d checkpoint rows in a refused workspace", len(rows))
	}
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@example.com", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@example.com")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// dirHash fingerprints a folder: paths, modes, modification times and contents.
func dirHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		h.Write([]byte(p + st.Mode().String() + st.ModTime().String()))
		if st.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}
