package direct

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A daemon's records are reaped only once it is gone: a daemon starting beside a live one
// on the same data dir leaves that one's commands running.
func TestLedgerReapsOnlyDeadDaemons(t *testing.T) {
	root := t.TempDir()
	start := func() *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	live, dead := start(), start()
	if _, err := NewLedger(root).add(live.Process.Pid); err != nil {
		t.Fatal(err)
	}
	// A daemon that is gone: a folder named after no running process.
	gone := &Ledger{root: root, name: "1.0"}
	if _, err := gone.add(dead.Process.Pid); err != nil {
		t.Fatal(err)
	}
	n, err := NewLedger(root).Reap()
	if err != nil || n != 1 {
		t.Fatalf("Reap = %d, %v; want 1 group stopped", n, err)
	}
	awaitEnd(t, dead, "the dead daemon's command")
	if err := syscall.Kill(live.Process.Pid, 0); err != nil {
		t.Fatalf("the live daemon's command was stopped: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "1.0")); !os.IsNotExist(err) {
		t.Fatalf("the dead daemon's records stay: %v", err)
	}
}

// A process that left its command's group (setsid) is stopped by Reap when the daemon whose
// tag it carries is gone, and only then: a tag naming a running daemon, or a daemon whose id
// a running process reuses, is told apart by the daemon's start time.
func TestLedgerReapsTaggedProcessesOfDeadDaemons(t *testing.T) {
	root := t.TempDir()
	self, err := readStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	start := func(tag string) *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		cmd.Env = append(os.Environ(), tagVar+"="+tag)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	// This process's id with another start time: a daemon that is gone, whose id was reused.
	deadName := fmt.Sprintf("%d.%d", os.Getpid(), self.start+1)
	live, dead := start(daemonName.Get()+".1"), start("4.4.1 "+deadName+".3")
	for _, name := range []string{daemonName.Get(), deadName} {
		if err := os.MkdirAll(filepath.Join(root, name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	n, err := NewLedger(root).Reap()
	if err != nil || n != 1 {
		t.Fatalf("Reap = %d, %v; want 1 process stopped", n, err)
	}
	awaitEnd(t, dead, "the dead daemon's escaped process")
	if err := syscall.Kill(live.Process.Pid, 0); err != nil {
		t.Fatalf("the live daemon's process was stopped: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, deadName)); !os.IsNotExist(err) {
		t.Fatalf("the dead daemon's folder stays: %v", err)
	}
}

// awaitEnd fails unless cmd, which Reap killed, ends within 5 s.
func awaitEnd(t *testing.T, cmd *exec.Cmd, what string) {
	t.Helper()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }() // killed: its error is the signal
	select {
	case err := <-waited:
		t.Logf("%s ended: %v", what, err)
	case <-time.After(5 * time.Second):
		t.Fatalf("%s still runs", what)
	}
}
