package server_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/sandbox"
)

// A process a foreground command leaves running (`server &`, in the command sandbox or
// not) is kept as a background command with the command's id: the model is told so in the
// result, the chat says so, and the task's end stops it by that id (README, "Commands that
// keep running"). Without the sandbox that holds for a process that left the command's
// process group too (`setsid`, a program that daemonizes itself).
func TestForegroundLeftoversAreKept(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		off        bool
	}{
		{name: "sandboxed &", line: "sleep 314171 > /dev/null 2>&1 &\necho started"},
		{name: "unsandboxed &", line: "sleep 314172 > /dev/null 2>&1 &\necho started", off: true},
		{name: "unsandboxed setsid &", line: "setsid sleep 314173 > /dev/null 2>&1 &\necho started", off: true},
		{name: "unsandboxed daemon", line: "sh -c 'setsid sleep 314174 > /dev/null 2>&1 &' &\necho started", off: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.off && !sandbox.Probe().Available {
				t.Skip("no command sandbox here")
			}
			f := strings.Fields(tc.line)
			arg := f[slices.Index(f, "sleep")+1]
			t.Cleanup(func() { killSleeps(arg) })
			e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
				{Text: "<execute_command>\n<command>" + tc.line + "</command>\n<requires_approval>false</requires_approval>\n</execute_command>"},
				{Text: "<ask_followup_question>\n<question>Keep it?</question>\n</ask_followup_question>",
					Expect: &llmtest.Expect{LastUserContains: []string{"Exit code: 0", "run on in the background as command 1"}}},
				{Text: complete},
			}}, servertest.Options{Settings: func(s *config.Settings) {
				s.AutoApprove.Enabled, s.AutoApprove.SafeCommands, s.AutoApprove.AllCommands = true, true, true
				s.SandboxOff = tc.off
			}})
			id := e.NewTask("start it", "", act)
			w := e.Watch(id)
			w.UntilAsk(cairnv1.AskKind_ASK_KIND_FOLLOWUP)
			found := false
			for _, m := range servertest.Find(w.Messages(), cairnv1.SayKind_SAY_KIND_INFO) {
				found = found || strings.HasPrefix(m.GetText(), "Command 1 ended, but what it started runs on in the background")
			}
			if !found {
				ps, _ := exec.Command("ps", "-eo", "pid,pgid,sid,stat,args").CombinedOutput()
				t.Fatalf("no note of the kept leftovers:\n%s\n%s", dumpMsgs(w.Messages()), ps)
			}
			if len(sleeps(arg)) == 0 {
				ps, _ := exec.Command("ps", "-eo", "pid,pgid,sid,stat,args").CombinedOutput()
				t.Fatalf("sleep %s is not running:\n%s", arg, ps)
			}
			// The model presents its result: the kept command is stopped, escaped or not.
			e.Answer(id, message, "go on")
			w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
			if pids := sleeps(arg); len(pids) > 0 {
				ps, _ := exec.Command("ps", "-eo", "pid,pgid,sid,stat,args").CombinedOutput()
				t.Fatalf("sleep %s (%v) still runs after the task's result:\n%s\n%s", arg, pids, dumpMsgs(w.Messages()), ps)
			}
		})
	}
}
