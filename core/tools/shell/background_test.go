//go:build linux

package shell

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

// freePort returns a TCP port nothing listens on right now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return port
}

// readUntil calls read_command_output (new output) until the collected text contains want;
// it fails after 10 s.
func readUntil(ctx context.Context, t *testing.T, env *tools.Env, reg *Registry, id int, want string) string {
	t.Helper()
	var all strings.Builder
	tr := reg.Get(id)
	for range 200 {
		changed := tr.Changed()
		res, err := NewReadOutput(reg).Run(ctx, env, tools.Call{Name: ReadOutputName, Params: map[string]string{"id": strconv.Itoa(id)}})
		if err != nil || res.IsError {
			t.Fatalf("read_command_output = %+v, %v", res, err)
		}
		all.WriteString(res.Text + "\n")
		if strings.Contains(all.String(), want) {
			return all.String()
		}
		select {
		case <-changed:
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("output never showed %q; read:\n%s", want, all.String())
	return ""
}

// A dev server started with background: the tool returns while it runs, the next command
// reaches it, its log is read (new output, a range, a regex), and stop_command ends it and
// its whole process group: the port is closed and no process of the group is left.
func TestBackgroundServerReadAndStop(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 is missing: .ci/run installs it, and CI must run this test")
		}
		t.Skip("needs python3")
	}
	ctx := testCtx(t)
	ui := &fakeUI{approve: tools.Answer{Approved: true}}
	env := newEnv(t, ui)
	if err := os.WriteFile(filepath.Join(env.Files.Root(), "page.txt"), []byte("hello from the page\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	reg := NewRegistry()
	port := freePort(t)
	server := fmt.Sprintf("python3 -u -m http.server %d --bind 127.0.0.1", port)
	res, err := New(reg).Run(ctx, env, call("command", server, "requires_approval", "false", "background", "true"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Text, "The command is running in the background as command 1.\nOutput so far:\nServing HTTP on 127.0.0.1 port "+strconv.Itoa(port)) {
		t.Fatalf("result = %q", res.Text)
	}
	tr := reg.Get(1)
	if tr == nil || tr.Finished() || tr.group == 0 {
		t.Fatalf("command 1 = %+v; want it running in a known process group", tr)
	}
	pids := groupMembers(tr.group)
	if len(pids) == 0 {
		t.Fatal("no process in the server's group")
	}

	// The next command reaches the server.
	fetch := fmt.Sprintf("python3 -c 'import urllib.request as u; print(u.urlopen(\"http://127.0.0.1:%d/page.txt\").read().decode())'", port)
	res, err = New(reg).Run(ctx, env, call("command", fetch, "requires_approval", "false"))
	if err != nil || !strings.Contains(res.Text, "Exit code: 0") || !strings.Contains(res.Text, "hello from the page") {
		t.Fatalf("fetch = %+v, %v", res, err)
	}

	// New output: the request's log line.
	got := readUntil(ctx, t, env, reg, 1, `"GET /page.txt HTTP/1.1" 200`)
	if !strings.Contains(got, "Command 1 (python3 -u -m http.server") || !strings.Contains(got, "is still running") {
		t.Errorf("read = %q", got)
	}
	// Environment details see it running, with its port, and share the cursor: the log line
	// read above is not new to them.
	running, _ := reg.Snapshot()
	if len(running) != 1 || running[0].ID != 1 || !slices.Contains(running[0].Ports, port) || running[0].NewOutput != "" {
		t.Fatalf("Snapshot running = %+v; want command 1 listening on %d, nothing new", running, port)
	}
	// Everything was taken: a second read has nothing new.
	again, err := NewReadOutput(reg).Run(ctx, env, tools.Call{Params: map[string]string{"id": "1"}})
	if err != nil || !strings.Contains(again.Text, "It printed nothing new since you last saw its output.") {
		t.Errorf("second read = %+v, %v", again, err)
	}
	// A range: the first line is the banner.
	lines, err := NewReadOutput(reg).Run(ctx, env, tools.Call{Params: map[string]string{"id": "1", "lines": "1-1"}})
	if err != nil || !strings.Contains(lines.Text, "Lines 1-1 of 2:\nServing HTTP on 127.0.0.1 port "+strconv.Itoa(port)) {
		t.Errorf("lines 1-1 = %+v, %v", lines, err)
	}
	// A regex: the matching line, numbered, with its context.
	re, err := NewReadOutput(reg).Run(ctx, env, tools.Call{Params: map[string]string{"id": "1", "regex": `GET /page\.txt`}})
	if err != nil || !strings.Contains(re.Text, "1- Serving HTTP") || !strings.Contains(re.Text, `2: 127.0.0.1 - - [`) {
		t.Errorf("regex = %+v, %v", re, err)
	}

	// stop_command ends the server and its group.
	stop, err := NewStop(reg).Run(ctx, env, tools.Call{Params: map[string]string{"id": "1"}})
	if err != nil || stop.IsError || !strings.HasPrefix(stop.Text, "Command 1 (") || !strings.Contains(stop.Text, "was stopped") {
		t.Fatalf("stop = %+v, %v", stop, err)
	}
	if !tr.Finished() || tr.ExitCode() == 0 {
		t.Errorf("after stop: finished %v, exit code %d", tr.Finished(), tr.ExitCode())
	}
	for _, pid := range pids {
		waitGone(t, pid)
	}
	if left := groupMembers(tr.group); len(left) > 0 {
		t.Errorf("processes %v of the group are left", left)
	}
	if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
		_ = c.Close()
		t.Errorf("port %d still accepts connections", port)
	}
	// Stopping it again, or reading it, still works on the finished command.
	if again, err := NewStop(reg).Run(ctx, env, tools.Call{Params: map[string]string{"id": "1"}}); err != nil || !strings.Contains(again.Text, "had already finished") {
		t.Errorf("second stop = %+v, %v", again, err)
	}
	if read, err := NewReadOutput(reg).Run(ctx, env, tools.Call{Params: map[string]string{"id": "1", "lines": "1-"}}); err != nil || !strings.Contains(read.Text, "has finished with exit code") {
		t.Errorf("read after stop = %+v, %v", read, err)
	}
	// The approvals: reading as a read, stopping as a command judged by the server's line.
	var cats []tools.Category
	for _, a := range ui.approvals {
		cats = append(cats, a.Category)
	}
	stopAsk := ui.approvals[len(ui.approvals)-2] // before the last read
	if p, ok := stopAsk.Payload.(*msg.Command); !ok || stopAsk.Category != tools.CategoryCommand || stopAsk.Command != server ||
		p.Command != "stop command 1: "+server {
		t.Errorf("stop approval = %+v; want a command approval judging the server's line", stopAsk)
	}
	if !slices.Contains(cats, tools.CategoryRead) {
		t.Errorf("approval categories %v; want a read for read_command_output", cats)
	}
}

// A foreground command still running at the wait limit moves to the background with its
// output so far; it is not stopped, and StopAll ends it.
func TestWaitLimitMovesToBackground(t *testing.T) {
	ctx := testCtx(t)
	ui := &fakeUI{approve: tools.Answer{Approved: true}}
	env := newEnv(t, ui)
	reg := NewRegistry()
	reg.SetWait(300 * time.Millisecond)
	res, err := New(reg).Run(ctx, env, call("command", "sh -c 'echo $$; echo compiling; exec sleep 60'", "requires_approval", "false"))
	if err != nil {
		t.Fatal(err)
	}
	pid := childPID(t, ui)
	want := fmt.Sprintf("The command was still running after 0 seconds, so it was moved to the background\nas command 1; it was not stopped.\nOutput so far:\n%d\ncompiling", pid)
	if !strings.HasPrefix(res.Text, want) {
		t.Fatalf("result = %q\nwant prefix %q", res.Text, want)
	}
	if tr := reg.Get(1); tr.Finished() {
		t.Fatal("the command was stopped")
	}
	stopped, err := reg.StopAll(ctx)
	if err != nil || len(stopped) != 1 || stopped[0].ID != 1 || stopped[0].Released {
		t.Fatalf("StopAll = %+v, %v", stopped, err)
	}
	waitGone(t, pid)
	if ended := reg.Ended(); len(ended) != 0 {
		t.Errorf("Ended after StopAll = %+v; StopAll reports those itself", ended)
	}
}

// At most MaxBackground commands started with background run at once: a fifth is refused
// before anything is asked or started; a foreground command reaching the wait limit moves to
// the background all the same.
func TestFifthBackgroundRefused(t *testing.T) {
	ctx := testCtx(t)
	ui := &fakeUI{approve: tools.Answer{Approved: true}}
	env := newEnv(t, ui)
	reg := NewRegistry()
	reg.SetWait(200 * time.Millisecond)
	t.Cleanup(func() {
		if _, err := reg.StopAll(context.Background()); err != nil {
			t.Error(err)
		}
	})
	for i := range MaxBackground {
		res, err := New(reg).Run(ctx, env, call("command", fmt.Sprintf("echo up %d; exec sleep 60", i), "requires_approval", "false", "background", "true"))
		if err != nil || !strings.Contains(res.Text, fmt.Sprintf("in the background as command %d.", i+1)) {
			t.Fatalf("start %d = %+v, %v", i+1, res, err)
		}
	}
	asked := len(ui.approvals)
	res, err := New(reg).Run(ctx, env, call("command", "echo five; exec sleep 60", "requires_approval", "false", "background", "true"))
	if err != nil || !res.IsError || !strings.Contains(res.Text, "4 commands started with background are already running") {
		t.Fatalf("fifth = %+v, %v", res, err)
	}
	if len(ui.approvals) != asked || reg.Get(5) != nil {
		t.Fatal("the refused command was asked about or started")
	}
	ui.mu.Lock()
	last := ui.says[len(ui.says)-1]
	ui.mu.Unlock()
	if last.kind != msg.SayInfo || !strings.HasPrefix(last.text, "Not started: 4 background commands already run") {
		t.Fatalf("the refusal is not in the chat: last say %+v", last)
	}
	res, err = New(reg).Run(ctx, env, call("command", "echo slow; exec sleep 60", "requires_approval", "false"))
	if err != nil || !strings.Contains(res.Text, "moved to the background\nas command 5") {
		t.Fatalf("foreground at the limit = %+v, %v", res, err)
	}
	// Once one ends, a background start is allowed again.
	if _, err := reg.Get(1).Stop(ctx); err != nil {
		t.Fatal(err)
	}
	res, err = New(reg).Run(ctx, env, call("command", "echo again; exec sleep 60", "requires_approval", "false", "background", "true"))
	if err != nil || !strings.Contains(res.Text, "as command 6.") {
		t.Fatalf("start after a stop = %+v, %v", res, err)
	}
}

// A command that finishes within the first moments of a background start reports its exit as
// any command does; the chat rows say when a command goes to the background.
func TestBackgroundQuickCommandCompletes(t *testing.T) {
	ui := &fakeUI{approve: tools.Answer{Approved: true}}
	reg := NewRegistry()
	res, err := New(reg).Run(testCtx(t), newEnv(t, ui), call("command", "true", "requires_approval", "false", "background", "true"))
	if err != nil || res.Text != "Command executed.\nExit code: 0\nThe command printed nothing." {
		t.Fatalf("result = %+v, %v", res, err)
	}
	for _, s := range ui.says {
		if s.kind == msg.SayInfo {
			t.Errorf("unexpected note %q for a command that ended", s.text)
		}
	}
}

// A command that left a process behind in its group (a server started with &, here one that
// ignores the hang-up of the terminal) counts as
// running until the group is empty, and StopAll ends that process too.
func TestStopAllEndsOrphans(t *testing.T) {
	ctx := testCtx(t)
	ui := &fakeUI{approve: tools.Answer{Approved: true}}
	env := newEnv(t, ui)
	reg := NewRegistry()
	res, err := New(reg).Run(ctx, env, call("command", "trap '' HUP; sleep 60 >/dev/null 2>&1 & echo $!", "requires_approval", "false"))
	if err != nil || !strings.Contains(res.Text, "Exit code: 0") {
		t.Fatalf("result = %+v, %v", res, err)
	}
	pid := childPID(t, ui)
	tr := reg.Get(1)
	if !tr.alive() {
		out, _ := exec.Command("ps", "-o", "pid,pgid,sid,stat,comm", "-e").Output()
		t.Logf("pid %d group %d\n%s", pid, tr.group, out)
		t.Fatal("the command with a process left in its group does not count as alive")
	}
	stopped, err := reg.StopAll(ctx)
	if err != nil || len(stopped) != 1 {
		t.Fatalf("StopAll = %+v, %v", stopped, err)
	}
	waitGone(t, pid)
}

func TestBadIDs(t *testing.T) {
	reg := NewRegistry()
	env := newEnv(t, &fakeUI{approve: tools.Answer{Approved: true}})
	for _, id := range []string{"", "x", "0", "7"} {
		for _, tool := range []tools.Tool{NewReadOutput(reg), NewStop(reg)} {
			res, err := tool.Run(testCtx(t), env, tools.Call{Params: map[string]string{"id": id}})
			if err != nil || !res.IsError {
				t.Errorf("%s id %q = %+v, %v; want an error for the model", tool.Spec().Name, id, res, err)
			}
		}
	}
}

func TestParseRange(t *testing.T) {
	for in, want := range map[string][3]int{"3": {3, 3, 1}, "2-5": {2, 5, 1}, "7-": {7, 0, 1}, " 1 - 2 ": {1, 2, 1},
		"0-3": {0, 0, 0}, "5-2": {0, 0, 0}, "a-b": {0, 0, 0}, "": {0, 0, 0}} {
		from, to, ok := parseRange(in)
		if ok != (want[2] == 1) || ok && (from != want[0] || to != want[1]) {
			t.Errorf("parseRange(%q) = %d, %d, %v; want %v", in, from, to, ok, want)
		}
	}
}

func TestCommandToolSpecs(t *testing.T) {
	reg := NewRegistry()
	for _, s := range []tools.Spec{NewReadOutput(reg).Spec(), NewStop(reg).Spec()} {
		if !s.PlanSafe || s.ArgParam != "id" || !s.Params[0].Required {
			t.Errorf("%s spec = %+v", s.Name, s)
		}
		for _, p := range s.Params {
			if p.Description == "" || strings.Contains(p.Description, "internal error") {
				t.Errorf("%s: bad text for %s: %q", s.Name, p.Name, p.Description)
			}
		}
	}
	if NewReadOutput(reg).Spec().Category != tools.CategoryRead || NewStop(reg).Spec().Category != tools.CategoryCommand {
		t.Error("categories: reading is a read, stopping a command")
	}
}
