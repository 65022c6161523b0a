package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/store"
)

// daemonProc is `cairn serve` running as a real process, so it can be killed with SIGKILL.
type daemonProc struct {
	cmd *exec.Cmd
	env *servertest.Env // its Conn is the client connection, closed by env.CloseConn
}

func buildCairn(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cairn")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/cairnhq/cairn/server/cmd/cairn").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startDaemon runs `cairn serve` on dataDir and connects to it.
func startDaemon(t *testing.T, bin, dataDir, socket string) *daemonProc {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--data-dir", dataDir, "--socket", socket)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("handshake: %v", err)
	}
	var hs struct {
		Address   string `json:"address"`
		TokenFile string `json:"token_file"`
	}
	if err := json.Unmarshal([]byte(line), &hs); err != nil {
		t.Fatalf("handshake %q: %v", line, err)
	}
	tok, err := os.ReadFile(hs.TokenFile)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := servertest.Dial(hs.Address, strings.TrimSpace(string(tok)))
	if err != nil {
		t.Fatal(err)
	}
	d := &daemonProc{cmd: cmd, env: &servertest.Env{T: t, Conn: conn,
		Tasks: cairnv1.NewTaskServiceClient(conn), UI: cairnv1.NewUiServiceClient(conn)}}
	t.Cleanup(d.env.CloseConn)
	return d
}

func (d *daemonProc) kill(t *testing.T) {
	t.Helper()
	if err := d.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = d.cmd.Wait()
	d.env.CloseConn()
}

// crashScript streams text, reads a file, rewrites it, runs a short command and completes:
// about a third of a second of streaming, tools and metadata writes to kill at random.
func crashScript(after string) llmtest.Script {
	const chunk, delay = 8, llmtest.Duration(2 * time.Millisecond)
	return llmtest.Script{Turns: []llmtest.Turn{
		{Text: "Let me look at the file before I change anything.\n<read_file>\n<path>target.txt</path>\n</read_file>",
			ChunkSize: chunk, Delay: delay},
		{Text: "Now I'll rewrite it with the new lines.\n<write_to_file>\n<path>target.txt</path>\n<content>\n" + after + "</content>\n</write_to_file>",
			ChunkSize: chunk * 4, Delay: delay},
		{Text: "<execute_command>\n<command>sleep 0.05; echo checked</command>\n<requires_approval>false</requires_approval>\n</execute_command>",
			ChunkSize: chunk, Delay: delay},
		{Text: "All done.\n" + complete, ChunkSize: chunk, Delay: delay},
	}, OnEnd: &llmtest.Turn{Text: complete}}
}

// TestCrashKill9 kills the real daemon with SIGKILL at random moments of a scripted task and
// restarts it on the same data dir: every message a client had seen completed is still there,
// the task asks to be resumed (resume_completed_task once it had finished), nothing is left
// streaming, and the file being rewritten holds either its old or its new content. Two
// workers share the kills, each with its own fake model.
func TestCrashKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the daemon 50 times")
	}
	kills, workers := 50, 2
	if s := os.Getenv("CAIRN_CRASH_KILLS"); s != "" {
		if _, err := fmt.Sscan(s, &kills); err != nil {
			t.Fatalf("CAIRN_CRASH_KILLS=%q: %v", s, err)
		}
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CAIRN_CRASH_SEED"); s != "" {
		if _, err := fmt.Sscan(s, &seed); err != nil {
			t.Fatalf("CAIRN_CRASH_SEED=%q: %v", s, err)
		}
	}
	t.Logf("seed %d (CAIRN_CRASH_SEED reproduces a run)", seed)
	start := time.Now()
	bin := buildCairn(t)
	t.Logf("built the daemon in %v", time.Since(start))
	start = time.Now()
	stats := make([]crashStats, workers)
	t.Run("workers", func(t *testing.T) {
		for w := range workers {
			t.Run(fmt.Sprint(w), func(t *testing.T) {
				t.Parallel()
				n := kills / workers
				if w < kills%workers {
					n++
				}
				stats[w] = crashWorker(t, bin, seed+uint64(w), n)
			})
		}
	})
	var all crashStats
	all.phases = map[string]int{}
	for _, s := range stats {
		all.recovered += s.recovered
		all.torn += s.torn
		all.temps += s.temps
		all.completed += s.completed
		all.kills += s.kills
		for k, v := range s.phases {
			all.phases[k] += v
		}
	}
	t.Logf("%d kills in %v (%v); %d completed messages recovered, all that clients had seen; %d torn records dropped; "+
		"%d resumed as completed; %d edit temp files left in workspaces", all.kills, time.Since(start), all.phases,
		all.recovered, all.torn, all.completed, all.temps)
}

type crashStats struct {
	kills, recovered, torn, temps, completed int
	phases                                   map[string]int
}

func crashWorker(t *testing.T, bin string, seed uint64, kills int) crashStats {
	rng := rand.New(rand.NewPCG(seed, 0))
	fake := llmtest.New(t, llmtest.Script{})
	before := "before\n"
	var after strings.Builder
	for i := range 40 {
		fmt.Fprintf(&after, "after line %d\n", i)
	}
	st := crashStats{phases: map[string]int{}}
	// The first run is not killed: it measures how long the whole task takes here, so that
	// the kills spread over all of it (plus a little after, when it waits at the end).
	var span time.Duration
	for k := -1; k < kills; k++ {
		dataDir, ws := t.TempDir(), t.TempDir()
		sockDir, err := os.MkdirTemp("", "cairn-crash-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := os.RemoveAll(sockDir); err != nil {
				t.Error(err)
			}
		})
		socket := filepath.Join(sockDir, "d.sock")
		target := filepath.Join(ws, "target.txt")
		if err := os.WriteFile(target, []byte(before), 0o644); err != nil {
			t.Fatal(err)
		}
		s := config.Default()
		s.API.BaseURL, s.API.APIKey, s.API.Model = fake.URL(), "k", "m"
		s.AutoApprove.EditFiles = true
		s.CheckpointsEnabled = false // a shadow git commit per edit would double the run time
		b, _ := json.Marshal(s)
		if err := os.WriteFile(filepath.Join(dataDir, "settings.json"), b, 0o600); err != nil {
			t.Fatal(err)
		}
		fake.SetScript(crashScript(after.String()))

		d := startDaemon(t, bin, dataDir, socket)
		resp, err := d.env.Tasks.NewTask(context.Background(), &cairnv1.NewTaskRequest{Text: "rewrite target.txt", WorkspaceRoots: []string{ws}})
		if err != nil {
			t.Fatal(err)
		}
		id := resp.GetTaskId()
		w := d.env.Watch(id)
		w.Until("the snapshot", func(_ []*cairnv1.Message, st *cairnv1.TaskState) bool { return st != nil })
		if k < 0 {
			began := time.Now()
			w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
			span = time.Since(began) * 6 / 5
			t.Logf("the task runs for %v uninterrupted; killing within %v", time.Since(began), span)
			if b, _ := os.ReadFile(target); string(b) != after.String() {
				t.Fatalf("the uninterrupted run did not rewrite target.txt: %q", b)
			}
			d.kill(t)
			continue
		}
		time.Sleep(time.Duration(rng.Int64N(int64(span))))
		seen := w.Messages() // everything here reached the client before the kill
		d.kill(t)
		w.Close()
		st.kills++
		st.phases[phase(seen)]++

		// Count torn records on a copy: opening the real folder would repair it first.
		st.torn += tornRecords(t, filepath.Join(dataDir, "tasks", id))
		temps, _ := filepath.Glob(filepath.Join(ws, ".target.txt.cairn-*"))
		st.temps += len(temps)

		d2 := startDaemon(t, bin, dataDir, socket)
		if _, err := d2.env.Tasks.ResumeTask(context.Background(), &cairnv1.ResumeTaskRequest{TaskId: id}); err != nil {
			t.Fatalf("kill %d: ResumeTask: %v", k, err)
		}
		w2 := d2.env.Watch(id)
		var ask cairnv1.AskKind
		w2.Until("a resume ask", func(msgs []*cairnv1.Message, st *cairnv1.TaskState) bool {
			if st == nil || st.GetOpenAskIndex() < 0 || int(st.GetOpenAskIndex()) >= len(msgs) || msgs[st.GetOpenAskIndex()] == nil {
				return false
			}
			ask = msgs[st.GetOpenAskIndex()].GetAsk()
			return ask == cairnv1.AskKind_ASK_KIND_RESUME_TASK || ask == cairnv1.AskKind_ASK_KIND_RESUME_COMPLETED_TASK
		})
		got := w2.Messages()
		n, err := checkRecovered(seen, got, ask)
		if err != nil {
			t.Fatalf("kill %d (%s, seed %d): %v\nseen before the kill:\n%s\nafter restart:\n%s", k, phase(seen), seed, err, dumpMsgs(seen), dumpMsgs(got))
		}
		st.recovered += n
		if ask == cairnv1.AskKind_ASK_KIND_RESUME_COMPLETED_TASK {
			st.completed++
		}
		if content, err := os.ReadFile(target); err != nil || (string(content) != before && string(content) != after.String()) {
			t.Fatalf("kill %d: target.txt = %q, %v: neither before nor after the edit", k, content, err)
		}
		d2.kill(t)
		w2.Close()
	}
	return st
}

// phase names what the task was doing when it was killed, from what the client had seen.
func phase(seen []*cairnv1.Message) string {
	if len(seen) == 0 || seen[len(seen)-1] == nil {
		return "starting"
	}
	last := seen[len(seen)-1]
	switch {
	case last.GetPartial():
		return "streaming"
	case last.GetAsk() == cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT:
		return "completed"
	case last.GetSay() == cairnv1.SayKind_SAY_KIND_API_REQ_STARTED:
		return "requesting"
	case last.GetSay() == cairnv1.SayKind_SAY_KIND_TOOL, last.GetSay() == cairnv1.SayKind_SAY_KIND_COMMAND,
		last.GetSay() == cairnv1.SayKind_SAY_KIND_COMMAND_OUTPUT, last.GetAsk() != cairnv1.AskKind_ASK_KIND_UNSPECIFIED:
		return "tool"
	default:
		return "between"
	}
}

// checkRecovered compares what a client saw completed before the kill with the task after the
// restart, and returns how many completed messages were recovered.
func checkRecovered(seen, got []*cairnv1.Message, ask cairnv1.AskKind) (int, error) {
	for i, m := range got {
		if m == nil || m.GetPartial() {
			return 0, fmt.Errorf("message %d is missing or still streaming after the restart", i)
		}
	}
	n := 0
	for i, m := range seen {
		if m == nil || m.GetPartial() {
			continue
		}
		if i >= len(got)-1 { // the last one is the resume ask
			return 0, fmt.Errorf("message %d (%s) was seen completed but is gone", i, kindOf(m))
		}
		g := got[i]
		if kindOf(g) != kindOf(m) || g.GetText() != m.GetText() {
			return 0, fmt.Errorf("message %d: seen %s %q, recovered %s %q", i, kindOf(m), m.GetText(), kindOf(g), g.GetText())
		}
		n++
	}
	for i, m := range got {
		if m.GetSay() == cairnv1.SayKind_SAY_KIND_API_REQ_STARTED && !m.GetApiRequest().GetDone() {
			return 0, fmt.Errorf("request row %d still in progress after the restart", i)
		}
	}
	want := cairnv1.AskKind_ASK_KIND_RESUME_TASK
	if len(got) >= 2 && got[len(got)-2].GetAsk() == cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT {
		want = cairnv1.AskKind_ASK_KIND_RESUME_COMPLETED_TASK
	}
	if ask != want || got[len(got)-1].GetAsk() != want {
		return 0, fmt.Errorf("resume ask %v, want %v", ask, want)
	}
	return n, nil
}

func kindOf(m *cairnv1.Message) string {
	if m.GetAsk() != cairnv1.AskKind_ASK_KIND_UNSPECIFIED {
		return "ask " + m.GetAsk().String()
	}
	return m.GetSay().String()
}

func dumpMsgs(msgs []*cairnv1.Message) string {
	var b strings.Builder
	for i, m := range msgs {
		if m == nil {
			fmt.Fprintf(&b, "  %d <nil>\n", i)
			continue
		}
		text := m.GetText()
		if len(text) > 80 {
			text = text[:80] + "…"
		}
		fmt.Fprintf(&b, "  %d %s partial=%v %q\n", i, kindOf(m), m.GetPartial(), text)
	}
	return b.String()
}

// tornRecords opens a copy of a task folder and returns how many records were dropped.
func tornRecords(t *testing.T, dir string) int {
	t.Helper()
	cp := t.TempDir()
	dst := filepath.Join(cp, "tasks", filepath.Base(dir))
	if err := os.MkdirAll(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.Open(cp)
	if err != nil {
		t.Fatal(err)
	}
	l, err := st.Load(filepath.Base(dir))
	if err != nil {
		t.Fatalf("the killed task does not open (its metadata must never be torn): %v", err)
	}
	mustClose(t, l.Log)
	return l.Dropped
}

// TestResumeAfterRestart stops the daemon gracefully and starts another on the same data dir.
func TestResumeAfterRestart(t *testing.T) {
	t.Run("completed task asks resume_completed_task and the model hears how long ago", func(t *testing.T) {
		e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{{Text: "Here you go.\n" + complete}}}, servertest.Options{})
		id := e.NewTask("finish quickly", "", act)
		w := e.Watch(id)
		w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
		before := w.Messages()
		e.Stop()
		// The task was last active three hours ago.
		st, err := store.Open(e.DataDir)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.UpdateMeta(id, func(m *store.Meta) { m.Updated = time.Now().Add(-3*time.Hour - time.Minute) }); err != nil {
			t.Fatal(err)
		}

		e2 := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{{Text: complete, Expect: &llmtest.Expect{
			LastUserContains: []string{"[TASK RESUMPTION]", "completed and last active 3 hours ago", "<user_message>\nalso add a test\n</user_message>"}}}}},
			servertest.Options{DataDir: e.DataDir, Workspace: e.Workspace})
		if _, err := e2.Tasks.ResumeTask(context.Background(), &cairnv1.ResumeTaskRequest{TaskId: id}); err != nil {
			t.Fatal(err)
		}
		w2 := e2.Watch(id)
		w2.UntilAsk(cairnv1.AskKind_ASK_KIND_RESUME_COMPLETED_TASK)
		after := w2.Messages()
		if _, err := checkRecovered(before, after, cairnv1.AskKind_ASK_KIND_RESUME_COMPLETED_TASK); err != nil {
			t.Fatalf("%v\nbefore:\n%s\nafter:\n%s", err, dumpMsgs(before), dumpMsgs(after))
		}
		if len(after) != len(before)+1 {
			t.Fatalf("%d messages before, %d after; want exactly one resume ask more:\n%s", len(before), len(after), dumpMsgs(after))
		}
		e2.Answer(id, message, "also add a test")
		w2.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
		if err := e2.LLM.Err(); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("edit interrupted by a restart is reverted and the model is told", func(t *testing.T) {
		e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{{Text: writeFile("notes.txt", "rewritten\n")}}}, servertest.Options{})
		notes := filepath.Join(e.Workspace, "notes.txt")
		if err := os.WriteFile(notes, []byte("original\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		host := e.ConnectHost()
		id := e.NewTask("rewrite the notes", host.ID, act)
		w := e.Watch(id)
		w.UntilAsk(cairnv1.AskKind_ASK_KIND_TOOL)
		if opened, _, _ := host.Counts(); opened != 1 {
			t.Fatalf("diff views opened: %d", opened)
		}
		e.Daemon.Stop() // the editor stays connected while the daemon stops
		e.CloseConn()
		if _, saved, reverted := host.Counts(); saved != 0 || reverted != 1 {
			t.Fatalf("on stop: saved=%d reverted=%d, want the open diff reverted", saved, reverted)
		}
		if b, _ := os.ReadFile(notes); string(b) != "original\n" {
			t.Fatalf("notes.txt = %q after the interrupted edit", b)
		}

		e2 := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{{Text: complete, Expect: &llmtest.Expect{
			LastUserContains:    []string{"[TASK RESUMPTION]", "This task was interrupted just now", "assume it did not run"},
			LastUserNotContains: []string{"completed and last active"}}}}},
			servertest.Options{DataDir: e.DataDir, Workspace: e.Workspace})
		host2 := e2.ConnectHost()
		if _, err := e2.Tasks.ResumeTask(context.Background(), &cairnv1.ResumeTaskRequest{TaskId: id, HostId: host2.ID}); err != nil {
			t.Fatal(err)
		}
		w2 := e2.Watch(id)
		w2.UntilAsk(cairnv1.AskKind_ASK_KIND_RESUME_TASK)
		e2.Answer(id, approve, "")
		w2.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
		if err := e2.LLM.Err(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(notes); string(b) != "original\n" {
			t.Fatalf("notes.txt = %q after resuming", b)
		}
		// The model's view: the tool call it made, then the resumption (no result in between).
		reqs := e2.LLM.Requests()
		msgs := reqs[len(reqs)-1].Messages
		if n := len(msgs); n < 3 || msgs[n-2].Role != "assistant" || !strings.Contains(msgs[n-2].Text, "<write_to_file>") {
			t.Fatalf("history sent after resume: %+v", msgs)
		}
	})

	t.Run("reopening twice asks once", func(t *testing.T) {
		e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{{Text: "<ask_followup_question>\n<question>Which file?</question>\n</ask_followup_question>"}}}, servertest.Options{})
		id := e.NewTask("pick a file", "", act)
		e.Watch(id).UntilAsk(cairnv1.AskKind_ASK_KIND_FOLLOWUP)
		e.Stop()
		dataDir, ws := e.DataDir, e.Workspace
		var counts []int
		for range 2 {
			e2 := servertest.Start(t, llmtest.Script{}, servertest.Options{DataDir: dataDir, Workspace: ws})
			if _, err := e2.Tasks.ResumeTask(context.Background(), &cairnv1.ResumeTaskRequest{TaskId: id}); err != nil {
				t.Fatal(err)
			}
			w := e2.Watch(id)
			w.UntilAsk(cairnv1.AskKind_ASK_KIND_RESUME_TASK)
			msgs := w.Messages()
			resumes := 0
			for _, m := range msgs {
				if m.GetAsk() == cairnv1.AskKind_ASK_KIND_RESUME_TASK {
					resumes++
				}
			}
			if resumes != 1 {
				t.Fatalf("%d resume asks:\n%s", resumes, dumpMsgs(msgs))
			}
			counts = append(counts, len(msgs))
			e2.Stop()
		}
		if counts[0] != counts[1] {
			t.Fatalf("messages grew from %d to %d by reopening", counts[0], counts[1])
		}
	})
}
