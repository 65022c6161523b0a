package direct

import (
	"io"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// What leaves a command's process group (setsid, a program that daemonizes itself) is still
// the command's: Members lists it once the shell exited, and Kill stops it (README,
// "Commands that keep running").
func TestEscapedProcessesAreMembersAndKilled(t *testing.T) {
	cases := []struct{ name, command string }{
		{"setsid &", `setsid sleep 300 & echo $!`},
		{"double fork", `sh -c 'setsid sleep 300 & echo $!' & wait`},
	}
	if _, err := exec.LookPath("setsid"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("setsid (util-linux) is missing: a Linux CI machine has it, and without it this case tests nothing")
		}
		t.Skip("no setsid here")
	}
	if exec.Command("setsid", "-f", "true").Run() == nil {
		cases = append(cases, struct{ name, command string }{"setsid -f", `setsid -f sh -c 'echo $$; exec sleep 300'`})
	}
	for _, m := range modes {
		for _, c := range cases {
			t.Run(m.name+"/"+c.name, func(t *testing.T) {
				ctx := testCtx(t)
				p, rest, child := startWithPID(ctx, t, newTestTerminal(m.noPTY), c.command)
				t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
				if _, err := io.ReadAll(rest); err != nil {
					t.Fatal(err)
				}
				if code, err := p.Wait(ctx); code != 0 || err != nil {
					t.Fatalf("Wait = %d, %v", code, err)
				}
				if pg, err := readStat(child); err != nil || pg.pgid == p.(*process).pgid {
					t.Fatalf("process %d: %+v, %v; want it outside group %d", child, pg, err, p.(*process).pgid)
				}
				mp := p.(*process)
				deadline := time.Now().Add(5 * time.Second)
				for !slices.Contains(mp.Members(), child) {
					if time.Now().After(deadline) {
						t.Fatalf("Members = %v, without the escaped process %d", mp.Members(), child)
					}
					time.Sleep(20 * time.Millisecond)
				}
				if err := p.Kill(); err != nil {
					t.Fatalf("Kill: %v", err)
				}
				waitGone(t, child)
				if m := mp.Members(); len(m) != 0 {
					t.Errorf("Members after Kill = %v, want none", m)
				}
			})
		}
	}
}

// A command's tag is added to the one the daemon inherited when it runs as a command itself,
// so the outer daemon still finds the inner daemon's commands.
func TestWithTagKeepsTheOuterTag(t *testing.T) {
	env := withTag([]string{"A=1", tagVar + "=9.9.1"}, "7.7.2")
	if !slices.Equal(env, []string{"A=1", tagVar + "=9.9.1 7.7.2"}) {
		t.Errorf("withTag = %q", env)
	}
	if env := withTag([]string{"A=1"}, "7.7.2"); !slices.Equal(env, []string{"A=1", tagVar + "=7.7.2"}) {
		t.Errorf("withTag = %q", env)
	}
}

// A process that left the command's group and runs another program (`setsid server` execs
// server) has a blank environment for the moment of that exec. tagged reads it again, so the
// process is not taken for gone; one started with no environment at all is still not the
// command's.
func TestTaggedWaitsOutAnExec(t *testing.T) {
	tag := newTag()
	start := func(env []string) int {
		cmd := exec.Command("sleep", "300")
		cmd.Env = env
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd.Process.Pid
	}
	mid := start([]string{tagVar + "=" + tag})
	bare := start([]string{})
	reads := 0
	readEnv := func(pid int) ([]byte, error) {
		if pid == mid {
			if reads++; reads <= 2 {
				return nil, nil // mid-exec: the new program's environment is not there yet
			}
		}
		return environOf(pid)
	}
	got := taggedBy(readEnv, func(s string) bool { return s == tag })
	if len(got) != 1 || got[0].pid != mid {
		t.Fatalf("tagged = %+v, want process %d (read %d times)", got, mid, reads)
	}
	if reads != 3 {
		t.Errorf("the blank environment was read %d times, want 3", reads)
	}
	if env, _ := environOf(bare); len(env) != 0 {
		t.Fatalf("process %d has an environment: %q", bare, env)
	}
	if got := tagged(func(s string) bool { return s == tag }); len(got) != 1 {
		t.Errorf("tagged = %+v with a process of no environment about", got)
	}
}
