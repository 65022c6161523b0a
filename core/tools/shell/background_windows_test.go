package shell

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/cairnhq/cairn/core/host/direct"
	"github.com/cairnhq/cairn/core/tools"
)

// helperEnv makes the test binary a process of a background command instead of running tests:
// "parent" prints its PID, starts a "child" copy of itself and prints the child's PID, and
// both then wait for a minute.
const helperEnv = "CAIRN_SHELL_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "parent":
		fmt.Printf("parent %d\n", os.Getpid())
		self, err := os.Executable()
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		child := exec.Command(self)
		child.Env = append(os.Environ(), helperEnv+"=child")
		if err := child.Start(); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Printf("child %d\n", child.Process.Pid)
		time.Sleep(time.Minute)
		os.Exit(0)
	case "child":
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// running reports whether pid is a process that has not exited.
func running(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer func() { _ = windows.CloseHandle(h) }()
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return false
	}
	const stillActive = 259
	return code == stillActive
}

// A background command's job object ends the processes it started: stop_command leaves
// neither the command's process nor its child running.
func TestStopEndsBackgroundChildrenInJob(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(helperEnv, "parent")
	term := direct.NewTerminal("") // cmd.exe
	ui := &fakeUI{approve: tools.Answer{Approved: true}}
	env := &tools.Env{Files: fakeFiles{root: t.TempDir()}, Host: fakeHost{term}, UI: ui, Mode: "act"}
	reg := NewRegistry()
	ctx := testCtx(t)
	res, err := New(reg).Run(ctx, env, call("command", `"`+self+`"`, "requires_approval", "false", "background", "true"))
	if err != nil || !strings.Contains(res.Text, "in the background as command 1") {
		t.Fatalf("result = %+v, %v", res, err)
	}
	tr := reg.Get(1)
	pids := map[string]int{}
	for range 500 {
		out, err := tr.Whole()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(out, "\n") {
			if name, v, ok := strings.Cut(strings.TrimSpace(line), " "); ok {
				if pid, err := strconv.Atoi(v); err == nil {
					pids[name] = pid
				}
			}
		}
		if len(pids) == 2 || tr.Finished() {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if pids["parent"] == 0 || pids["child"] == 0 || !running(pids["child"]) {
		out, _ := tr.Whole()
		t.Fatalf("no running parent and child; output:\n%s", out)
	}
	stop, err := NewStop(reg).Run(ctx, env, tools.Call{Params: map[string]string{"id": "1"}})
	if err != nil || !strings.Contains(stop.Text, "was stopped") {
		t.Fatalf("stop = %+v, %v", stop, err)
	}
	for name, pid := range pids {
		for i := 0; running(pid); i++ {
			if i == 250 {
				t.Fatalf("the %s process %d still runs after stop_command", name, pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
