package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/sandbox"
)

// `cairn serve` killed with SIGKILL leaves no command running: a sandboxed command dies with
// its launcher, and an unsandboxed one is stopped by the next daemon on the data dir before it serves anyone,
// also what left its process group (README, "Commands that keep running").
func TestKilledDaemonLeavesNoCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills the daemon")
	}
	bin := buildCairn(t)
	for _, tc := range []struct {
		name    string
		off     bool
		bg      string // a unique sleep argument
		escape  bool   // the sleep leaves the command's group (setsid), from a foreground command
		skipWhy string
	}{
		{name: "unsandboxed", off: true, bg: "314159"},
		{name: "unsandboxed setsid", off: true, bg: "314163", escape: true},
		{name: "sandboxed", bg: "314161", skipWhy: sandbox.Probe().Reason},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.off && !sandbox.Probe().Available {
				t.Skip("no command sandbox here: ", tc.skipWhy)
			}
			// As under nohup, a hangup of the command's terminal as the daemon dies does not
			// end it.
			call := "<execute_command>\n<command>trap '' HUP; exec sleep " + tc.bg + "</command>\n" +
				"<requires_approval>false</requires_approval>\n<background>true</background>\n</execute_command>"
			if tc.escape {
				call = "<execute_command>\n<command>setsid sleep " + tc.bg + " > /dev/null 2>&1 &\necho started</command>\n" +
					"<requires_approval>false</requires_approval>\n</execute_command>"
			}
			fake := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{
				{Text: call},
				{Text: "<ask_followup_question>\n<question>Keep them?</question>\n</ask_followup_question>"},
			}})
			dataDir, ws := t.TempDir(), t.TempDir()
			sockDir, err := os.MkdirTemp("", "cairn-left-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = os.RemoveAll(sockDir) })
			socket := filepath.Join(sockDir, "d.sock")
			s := config.Default()
			s.API.BaseURL, s.API.APIKey, s.API.Model = fake.URL(), "k", "m"
			s.AutoApprove.Enabled, s.AutoApprove.SafeCommands, s.AutoApprove.AllCommands = true, true, true
			s.SandboxOff = tc.off
			s.CheckpointsEnabled = false
			b, _ := json.Marshal(s)
			if err := os.WriteFile(filepath.Join(dataDir, "settings.json"), b, 0o600); err != nil {
				t.Fatal(err)
			}
			d := startDaemon(t, bin, dataDir, socket)
			resp, err := d.env.Tasks.NewTask(context.Background(), &cairnv1.NewTaskRequest{Text: "start them", WorkspaceRoots: []string{ws}})
			if err != nil {
				t.Fatal(err)
			}
			w := d.env.Watch(resp.GetTaskId())
			w.UntilAsk(cairnv1.AskKind_ASK_KIND_FOLLOWUP)
			t.Cleanup(func() { killSleeps(tc.bg) })
			for _, arg := range []string{tc.bg} {
				if len(sleeps(arg)) == 0 {
					t.Fatalf("sleep %s is not running before the kill:\n%s", arg, dumpMsgs(w.Messages()))
				}
			}
			d.kill(t)
			w.Close()
			d2 := startDaemon(t, bin, dataDir, socket) // its handshake: it serves from now on
			for _, arg := range []string{tc.bg} {
				if pids := sleeps(arg); len(pids) > 0 {
					t.Errorf("sleep %s (%v) still runs when the next daemon serves", arg, pids)
				}
			}
			d2.kill(t)
		})
	}
}

// sleeps returns the live processes running `sleep arg`.
func sleeps(arg string) []int {
	procs, _ := os.ReadDir("/proc")
	want := []byte("sleep\x00" + arg + "\x00")
	var out []int
	for _, p := range procs {
		pid, err := strconv.Atoi(p.Name())
		if err != nil {
			continue
		}
		cl, err := os.ReadFile("/proc/" + p.Name() + "/cmdline")
		if err == nil && bytes.HasSuffix(cl, want) && !zombie(pid) {
			out = append(out, pid)
		}
	}
	return out
}

func killSleeps(args ...string) {
	for _, a := range args {
		for _, pid := range sleeps(a) {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	}
	time.Sleep(10 * time.Millisecond)
}
