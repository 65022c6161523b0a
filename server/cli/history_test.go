package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/server/cli"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
)

// seedTasks writes finished tasks to a data dir, oldest first, each in workspace ws.
func seedTasks(t *testing.T, dataDir, ws string, titles ...string) []string {
	t.Helper()
	st, err := store.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	base := time.Now().Add(-time.Duration(len(titles)) * time.Hour)
	for i, title := range titles {
		at := base.Add(time.Duration(i) * time.Hour)
		id := "task-" + strings.ReplaceAll(strings.ToLower(title), " ", "-")
		l, err := st.Create(store.Meta{ID: id, Title: title, Workspace: []string{ws}, Model: "m", Created: at, Updated: at,
			TokensIn: int64(100 * (i + 1)), TokensOut: 10, Cost: 0.01 * float64(i+1), Favorite: i == 0})
		if err != nil {
			t.Fatal(err)
		}
		for j, m := range []msg.Message{
			{Type: msg.Say, Kind: msg.SayTask, Text: title},
			{Type: msg.Say, Kind: msg.SayCompletionResult, Text: "Did " + title},
			{Type: msg.Ask, Kind: msg.AskCompletionResult},
		} {
			m.Index, m.Time = j, at
			if err := l.AppendMessage(m, true); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func cairn(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CAIRN_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func TestHistoryCommand(t *testing.T) {
	dataDir, ws := t.TempDir(), t.TempDir()
	ids := seedTasks(t, dataDir, ws, "Add a parser", "Fix the tests", "Write the docs")

	t.Run("table, newest first", func(t *testing.T) {
		code, out, errs := cairn(t, "history", "--data-dir", dataDir)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 4 || !strings.HasPrefix(lines[0], "ID") {
			t.Fatalf("output:\n%s", out)
		}
		for i, id := range []string{ids[2], ids[1], ids[0]} {
			if !strings.HasPrefix(lines[i+1], id+" ") {
				t.Fatalf("line %d = %q, want task %s", i+1, lines[i+1], id)
			}
		}
		if !strings.Contains(lines[1], "Write the docs") || !strings.Contains(lines[1], "$0.0300") || !strings.Contains(lines[1], "310") {
			t.Fatalf("row = %q", lines[1])
		}
	})

	t.Run("json", func(t *testing.T) {
		code, out, errs := cairn(t, "history", "--json", "--data-dir", dataDir)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		var rows []struct {
			ID        string   `json:"id"`
			Title     string   `json:"title"`
			Workspace []string `json:"workspace"`
			Favorite  bool     `json:"favorite"`
			TokensIn  int64    `json:"tokensIn"`
			SizeBytes int64    `json:"sizeBytes"`
		}
		if err := json.Unmarshal([]byte(out), &rows); err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		if len(rows) != 3 || rows[0].ID != ids[2] || rows[2].ID != ids[0] || !rows[2].Favorite || rows[1].Favorite ||
			rows[0].TokensIn != 300 || rows[0].Workspace[0] != ws {
			t.Fatalf("rows = %+v", rows)
		}
		for _, r := range rows {
			if r.SizeBytes <= 0 {
				t.Fatalf("%s: size %d", r.ID, r.SizeBytes)
			}
		}
	})

	t.Run("empty history", func(t *testing.T) {
		empty := t.TempDir()
		if code, out, _ := cairn(t, "history", "--json", "--data-dir", empty); code != 0 || strings.TrimSpace(out) != "[]" {
			t.Fatalf("exit %d, output %q", code, out)
		}
		if code, out, _ := cairn(t, "history", "--data-dir", empty); code != 0 || strings.Count(out, "\n") != 1 {
			t.Fatalf("exit %d, output %q", code, out)
		}
	})

	t.Run("CAIRN_DATA_DIR", func(t *testing.T) {
		t.Setenv("CAIRN_DATA_DIR", dataDir)
		if code, out, _ := cairn(t, "history", "--json"); code != 0 || !strings.Contains(out, ids[1]) {
			t.Fatalf("exit %d, output %q", code, out)
		}
	})
}

func TestResumeCommand(t *testing.T) {
	dataDir, ws := t.TempDir(), t.TempDir()
	ids := seedTasks(t, dataDir, ws, "Finish the report")
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{{
		Text:   "<attempt_completion>\n<result>Report finished again.</result>\n</attempt_completion>",
		Expect: &llmtest.Expect{LastUserContains: []string{"[TASK RESUMPTION]", "completed and last active 1 hour ago"}},
	}}})
	code, out, errs := cairn(t, "resume", "--data-dir", dataDir, "--base-url", srv.URL(), "--api-key", "k", "--model", "m", ids[0])
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("the model got %d requests, want the resumed turn\nstdout:\n%s", n, out)
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Report finished again.") {
		t.Fatalf("stdout:\n%s", out)
	}
	// The resumed conversation is saved: history shows the task updated.
	st, err := store.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := st.Load(ids[0])
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := loaded.Log.Close(); err != nil {
			t.Error(err)
		}
	}()
	var kinds []string
	for _, m := range loaded.Messages {
		kinds = append(kinds, string(m.Type)+":"+string(m.Kind))
	}
	if got := strings.Join(kinds, " "); !strings.Contains(got, "ask:resume_completed_task") || !strings.HasSuffix(got, "ask:completion_result") {
		t.Fatalf("saved messages: %s", got)
	}

	t.Run("unknown id", func(t *testing.T) {
		code, _, errs := cairn(t, "resume", "--data-dir", dataDir, "--base-url", srv.URL(), "--api-key", "k", "no-such-task")
		if code != 1 || !strings.Contains(errs, "not found") {
			t.Fatalf("exit %d, stderr %q", code, errs)
		}
	})
	t.Run("no id", func(t *testing.T) {
		if code, _, _ := cairn(t, "resume", "--data-dir", dataDir, "--base-url", srv.URL()); code != 2 {
			t.Fatalf("exit %d, want 2", code)
		}
	})
}
