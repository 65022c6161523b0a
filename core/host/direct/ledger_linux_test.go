package direct

import (
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
	gone := &Ledger{root: root, dir: filepath.Join(root, "1.0")}
	if _, err := gone.add(dead.Process.Pid); err != nil {
		t.Fatal(err)
	}
	n, err := NewLedger(root).Reap()
	if err != nil || n != 1 {
		t.Fatalf("Reap = %d, %v; want 1 group stopped", n, err)
	}
	waited := make(chan error, 1)
	go func() { waited <- dead.Wait() }() // killed: its error is the signal
	select {
	case err := <-waited:
		t.Logf("the dead daemon's command ended: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("the dead daemon's command still runs")
	}
	if err := syscall.Kill(live.Process.Pid, 0); err != nil {
		t.Fatalf("the live daemon's command was stopped: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "1.0")); !os.IsNotExist(err) {
		t.Fatalf("the dead daemon's records stay: %v", err)
	}
}
