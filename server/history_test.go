package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
)

// seeded is a task written to the store before the daemon starts.
type seeded struct {
	id, title, ws string
	hoursAgo      int
	cost          float64
	in, out       int64
	fav           bool
}

// seedHistory writes tasks straight to a data dir: a task message and a completion each.
func seedHistory(t *testing.T, dataDir string, tasks []seeded) {
	t.Helper()
	st, err := store.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for _, s := range tasks {
		at := now.Add(-time.Duration(s.hoursAgo) * time.Hour)
		l, err := st.Create(store.Meta{ID: s.id, Title: s.title, Workspace: []string{s.ws}, Model: "fake-model", Mode: "act",
			Created: at, Updated: at, Cost: s.cost, TokensIn: s.in, TokensOut: s.out, Favorite: s.fav, Completed: true})
		if err != nil {
			t.Fatal(err)
		}
		for i, m := range []msg.Message{
			{Type: msg.Say, Kind: msg.SayTask, Text: s.title + "\nmore detail"},
			{Type: msg.Say, Kind: msg.SayText, Text: "Working on " + s.id + "."},
			{Type: msg.Say, Kind: msg.SayCompletionResult, Text: "Finished " + s.id + "."},
			{Type: msg.Ask, Kind: msg.AskCompletionResult},
		} {
			m.Index, m.Time = i, at
			if err := l.AppendMessage(m, true); err != nil {
				t.Fatal(err)
			}
		}
		mustClose(t, l)
	}
}

func listIDs(t testing.TB, e *servertest.Env, req *cairnv1.ListTasksRequest) ([]string, *cairnv1.ListTasksResponse) {
	t.Helper()
	resp, err := e.Tasks.ListTasks(context.Background(), req)
	if err != nil {
		t.Fatalf("ListTasks(%v): %v", req, err)
	}
	ids := []string{}
	for _, s := range resp.GetTasks() {
		ids = append(ids, s.GetTaskId())
	}
	return ids, resp
}

func TestHistoryListSearchSortFavorite(t *testing.T) {
	dataDir, wsA, wsB := t.TempDir(), "/work/alpha", "/work/beta"
	seedHistory(t, dataDir, []seeded{
		{id: "old", title: "Fix the Parser bug", ws: wsA, hoursAgo: 30, cost: 0.50, in: 100, out: 50, fav: true},
		{id: "mid", title: "Write docs for the parser", ws: wsB, hoursAgo: 20, cost: 2.00, in: 10, out: 5},
		{id: "new", title: "Refactor the store", ws: wsA, hoursAgo: 10, cost: 0.10, in: 5000, out: 100},
	})
	e := servertest.Start(t, llmtest.Script{}, servertest.Options{DataDir: dataDir})

	cases := []struct {
		name string
		req  *cairnv1.ListTasksRequest
		want []string
	}{
		{"newest first", &cairnv1.ListTasksRequest{}, []string{"new", "mid", "old"}},
		{"search any case", &cairnv1.ListTasksRequest{Search: "  PARSER "}, []string{"mid", "old"}},
		{"search no match", &cairnv1.ListTasksRequest{Search: "nothing like it"}, []string{}},
		{"favourites only", &cairnv1.ListTasksRequest{FavoritesOnly: true}, []string{"old"}},
		{"current workspace", &cairnv1.ListTasksRequest{WorkspaceRoot: wsA}, []string{"new", "old"}},
		{"oldest", &cairnv1.ListTasksRequest{Sort: cairnv1.TaskSort_TASK_SORT_OLDEST}, []string{"old", "mid", "new"}},
		{"most expensive", &cairnv1.ListTasksRequest{Sort: cairnv1.TaskSort_TASK_SORT_MOST_EXPENSIVE}, []string{"mid", "old", "new"}},
		{"most tokens", &cairnv1.ListTasksRequest{Sort: cairnv1.TaskSort_TASK_SORT_MOST_TOKENS}, []string{"new", "old", "mid"}},
		{"filters combine", &cairnv1.ListTasksRequest{Search: "parser", WorkspaceRoot: wsA, Sort: cairnv1.TaskSort_TASK_SORT_MOST_EXPENSIVE}, []string{"old"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got, _ := listIDs(t, e, c.req); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("ids = %v, want %v", got, c.want)
			}
		})
	}

	t.Run("summary fields and total size", func(t *testing.T) {
		_, resp := listIDs(t, e, &cairnv1.ListTasksRequest{})
		var sum int64
		for _, s := range resp.GetTasks() {
			if s.GetSizeBytes() <= 0 {
				t.Fatalf("%s: size %d", s.GetTaskId(), s.GetSizeBytes())
			}
			sum += s.GetSizeBytes()
		}
		if resp.GetTotalSizeBytes() != sum {
			t.Fatalf("total size %d, sum of tasks %d", resp.GetTotalSizeBytes(), sum)
		}
		// The total covers all history even when the list is filtered.
		_, filtered := listIDs(t, e, &cairnv1.ListTasksRequest{FavoritesOnly: true})
		if filtered.GetTotalSizeBytes() != sum {
			t.Fatalf("filtered total %d, want %d", filtered.GetTotalSizeBytes(), sum)
		}
		old := resp.GetTasks()[2]
		if old.GetTitle() != "Fix the Parser bug" || old.GetWorkspaceRoot() != wsA || old.GetCost() != 0.5 ||
			old.GetTokensIn() != 100 || old.GetTokensOut() != 50 || !old.GetFavorite() || old.GetModel() != "fake-model" {
			t.Fatalf("summary = %v", old)
		}
	})

	t.Run("favourite and unfavourite", func(t *testing.T) {
		for _, f := range []struct {
			id  string
			fav bool
		}{{"mid", true}, {"old", false}} {
			if _, err := e.Tasks.SetFavorite(context.Background(), &cairnv1.SetFavoriteRequest{TaskId: f.id, Favorite: f.fav}); err != nil {
				t.Fatal(err)
			}
		}
		if got, _ := listIDs(t, e, &cairnv1.ListTasksRequest{FavoritesOnly: true}); !reflect.DeepEqual(got, []string{"mid"}) {
			t.Fatalf("favourites = %v", got)
		}
		// A favourite survives a restart: it is on disk, not only in the daemon.
		e.Stop()
		e2 := servertest.Start(t, llmtest.Script{}, servertest.Options{DataDir: dataDir})
		if got, _ := listIDs(t, e2, &cairnv1.ListTasksRequest{FavoritesOnly: true}); !reflect.DeepEqual(got, []string{"mid"}) {
			t.Fatalf("favourites after restart = %v", got)
		}
		if _, err := e2.Tasks.SetFavorite(context.Background(), &cairnv1.SetFavoriteRequest{TaskId: "missing", Favorite: true}); status.Code(err) != codes.NotFound {
			t.Fatalf("SetFavorite(missing) = %v, want NotFound", err)
		}
	})
}

func TestHistoryDeleteAndExport(t *testing.T) {
	dataDir, ws := t.TempDir(), t.TempDir()
	var tasks []seeded
	for i := range 5 {
		tasks = append(tasks, seeded{id: fmt.Sprintf("t%d", i), title: fmt.Sprintf("Task number %d", i), ws: ws, hoursAgo: 10 - i})
	}
	seedHistory(t, dataDir, tasks)
	e := servertest.Start(t, llmtest.Script{}, servertest.Options{DataDir: dataDir})
	ctx := context.Background()

	exp, err := e.Tasks.ExportTask(ctx, &cairnv1.ExportTaskRequest{TaskId: "t2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Task number 2\n", "## User\n\nTask number 2\nmore detail", "## Cairn\n\nWorking on t2.", "Finished t2."} {
		if !strings.Contains(exp.GetMarkdown(), want) {
			t.Fatalf("export lacks %q:\n%s", want, exp.GetMarkdown())
		}
	}
	if !strings.HasPrefix(exp.GetFileName(), "cairn_task_") || !strings.HasSuffix(exp.GetFileName(), ".md") {
		t.Fatalf("file name %q", exp.GetFileName())
	}
	if _, err := e.Tasks.ExportTask(ctx, &cairnv1.ExportTaskRequest{TaskId: "nope"}); status.Code(err) != codes.NotFound {
		t.Fatalf("ExportTask(unknown) = %v, want NotFound", err)
	}

	del := func(req *cairnv1.DeleteTasksRequest, want []string) {
		t.Helper()
		if _, err := e.Tasks.DeleteTasks(ctx, req); err != nil {
			t.Fatal(err)
		}
		got, resp := listIDs(t, e, &cairnv1.ListTasksRequest{})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("after delete %v: %v, want %v", req, got, want)
		}
		var sum int64
		for _, s := range resp.GetTasks() {
			sum += s.GetSizeBytes()
		}
		if resp.GetTotalSizeBytes() != sum {
			t.Fatalf("total size %d after delete, tasks sum to %d", resp.GetTotalSizeBytes(), sum)
		}
	}
	del(&cairnv1.DeleteTasksRequest{TaskIds: []string{"t2"}}, []string{"t4", "t3", "t1", "t0"}) // t2 was loaded by the export
	if _, err := os.Stat(filepath.Join(dataDir, "tasks", "t2")); !os.IsNotExist(err) {
		t.Fatalf("t2's folder is still there: %v", err)
	}
	if _, err := e.Tasks.ResumeTask(ctx, &cairnv1.ResumeTaskRequest{TaskId: "t2"}); status.Code(err) != codes.NotFound {
		t.Fatalf("ResumeTask(deleted) = %v, want NotFound", err)
	}
	del(&cairnv1.DeleteTasksRequest{TaskIds: []string{"t0", "t4"}}, []string{"t3", "t1"})
	del(&cairnv1.DeleteTasksRequest{All: true}, []string{})
	if entries, _ := os.ReadDir(filepath.Join(dataDir, "tasks")); len(entries) > 1 {
		t.Fatalf("task folders left: %v", entries) // only the history index may remain
	}
}

// TestHistoryShowsLiveTask runs a task and finds it in history with its usage.
func TestHistoryShowsLiveTask(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: complete, Usage: &llmtest.Usage{PromptTokens: 1234, CompletionTokens: 56}},
	}}, servertest.Options{})
	id := e.NewTask("a live task about history", "", act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	_, resp := listIDs(t, e, &cairnv1.ListTasksRequest{Search: "live task", WorkspaceRoot: e.Workspace})
	if len(resp.GetTasks()) != 1 {
		t.Fatalf("tasks = %v", resp.GetTasks())
	}
	s := resp.GetTasks()[0]
	if s.GetTaskId() != id || s.GetTokensIn() != 1234 || s.GetTokensOut() != 56 || s.GetSizeBytes() == 0 {
		t.Fatalf("summary = %v", s)
	}
}

// BenchmarkHistoryOpen is the history figure of `make bench`: how long a 10,000-message task
// takes to appear in history (list-ms, ListTasks) and to open over gRPC (open-ms: ResumeTask,
// then the Subscribe snapshot; target < 1 s). One iteration writes the task into a fresh data
// dir (not timed), starts a daemon on it and measures both.
func BenchmarkHistoryOpen(b *testing.B) {
	const n = 10_000
	var listed, opened time.Duration
	for b.Loop() {
		b.StopTimer()
		dataDir, ws := b.TempDir(), b.TempDir()
		st, err := store.Open(dataDir)
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now()
		l, err := st.Create(store.Meta{ID: "big", Title: "big task", Workspace: []string{ws}, Created: now, Updated: now})
		if err != nil {
			b.Fatal(err)
		}
		for i := range n {
			m := msg.Message{Index: i, Time: now, Type: msg.Say, Kind: msg.SayText, Text: fmt.Sprintf("message %d: %s", i, strings.Repeat("words ", 30))}
			if i%3 == 1 {
				m.Type, m.Kind, m.Text = msg.Ask, msg.AskTool, ""
				m.Payload = &msg.Tool{Op: msg.OpEditedExistingFile, Path: "src/app.go", Diff: "@@ -1 +1 @@\n-old\n+new\n"}
			}
			if err := l.AppendMessage(m, false); err != nil {
				b.Fatal(err)
			}
		}
		mustClose(b, l)
		e := servertest.Start(b, llmtest.Script{}, servertest.Options{DataDir: dataDir, Workspace: ws})
		ctx := context.Background()
		b.StartTimer()

		start := time.Now()
		if _, resp := listIDs(b, e, &cairnv1.ListTasksRequest{}); len(resp.GetTasks()) != 1 {
			b.Fatal("not listed")
		}
		listed += time.Since(start)
		start = time.Now()
		if _, err := e.Tasks.ResumeTask(ctx, &cairnv1.ResumeTaskRequest{TaskId: "big"}); err != nil {
			b.Fatal(err)
		}
		stream, err := e.UI.Subscribe(ctx, &cairnv1.SubscribeRequest{TaskId: "big"})
		if err != nil {
			b.Fatal(err)
		}
		first, err := stream.Recv()
		if err != nil || len(first.GetSnapshot().GetMessages()) < n {
			b.Fatalf("snapshot: %d messages, %v", len(first.GetSnapshot().GetMessages()), err)
		}
		opened += time.Since(start)
		b.StopTimer()
		e.Stop()
		b.StartTimer()
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(listed), "list-ms")
	b.ReportMetric(ms(opened), "open-ms")
}
