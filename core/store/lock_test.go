package store

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/msg"
)

// A task one Store holds (a daemon has it open) is refused to another Store on the same data
// dir, with the holder's process id, its handshake file and the --connect hint; listing and
// reading it still work; once the holder closes it, the other Store opens it.
func TestLoadRefusedWhileAnotherStoreHolds(t *testing.T) {
	data := t.TempDir()
	a, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	shake := filepath.Join(data, "daemon.json")
	a.SetHandshake(shake)
	b, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	l, err := a.Create(Meta{ID: "t1", Title: "held", Created: time.Now(), Updated: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.AppendMessage(msg.Message{Index: 0, Type: msg.Say, Kind: msg.SayTask, Text: "do it"}, true); err != nil {
		t.Fatal(err)
	}

	_, err = b.Load("t1")
	var le *LockedError
	if !errors.Is(err, ErrLocked) || !errors.As(err, &le) {
		t.Fatalf("second Load: %v, want a LockedError", err)
	}
	if le.PID != os.Getpid() || le.Handshake != shake {
		t.Errorf("holder = %d %q, want %d %q", le.PID, le.Handshake, os.Getpid(), shake)
	}
	for _, want := range []string{strconv.Itoa(os.Getpid()), shake, "cairn resume --connect t1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	metas, err := b.List()
	if err != nil || len(metas) != 1 || metas[0].Title != "held" {
		t.Errorf("List while held = %v, %v", metas, err)
	}
	read, err := b.Read("t1")
	if err != nil || len(read.Messages) != 1 || read.Messages[0].Text != "do it" || read.Log != nil {
		t.Errorf("Read while held = %+v, %v", read, err)
	}
	if err := b.Delete("t1"); !errors.Is(err, ErrLocked) {
		t.Errorf("Delete while held: %v, want ErrLocked", err)
	}
	if _, err := os.Stat(filepath.Join(data, "tasks", "t1", metaFile)); err != nil {
		t.Errorf("a refused Delete removed the task: %v", err)
	}

	mustClose(t, l)
	got, err := b.Load("t1")
	if err != nil {
		t.Fatalf("Load after the holder closed: %v", err)
	}
	if len(got.Messages) != 1 {
		t.Errorf("messages = %d, want 1", len(got.Messages))
	}
	// Now b holds it: a is refused, and b's lock names no handshake (a private daemon).
	_, err = a.Load("t1")
	if !errors.As(err, &le) || le.Handshake != "" || !strings.Contains(err.Error(), "private daemon") {
		t.Errorf("Load of a task b holds: %v", err)
	}
	mustClose(t, got.Log)
	if err := a.Delete("t1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(data, "tasks", "t1")); !os.IsNotExist(err) {
		t.Errorf("task folder after Delete: %v", err)
	}
}

// Read changes nothing: a torn tail (perhaps a record the holder is writing) is skipped, not
// cut, so the holder's next append completes it.
func TestReadLeavesTornTail(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Create(Meta{ID: "t1", Created: time.Now(), Updated: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, l)
	if err := l.AppendMessage(msg.Message{Index: 0, Type: msg.Say, Kind: msg.SayTask, Text: "do it"}, true); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(l.Dir(), messagesFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("0000abcd {\"half"); err != nil {
		t.Fatal(err)
	}
	mustClose(t, f)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Read("t1")
	if err != nil || len(got.Messages) != 1 || got.Dropped != 1 {
		t.Fatalf("Read = %+v, %v", got, err)
	}
	after, err := os.Stat(path)
	if err != nil || after.Size() != before.Size() {
		t.Errorf("Read changed the log: %d -> %d bytes (%v)", before.Size(), after.Size(), err)
	}
}

// helperEnv names the data dir in which the child of TestLockOfDeadProcessIsFree holds "t1".
const helperEnv = "CAIRN_STORE_LOCK_HELPER"

// TestLockHelperProcess is the child of TestLockOfDeadProcessIsFree: it loads the task (taking
// its lock), says so, and waits to be killed.
func TestLockHelperProcess(t *testing.T) {
	data := os.Getenv(helperEnv)
	if data == "" {
		t.Skip("runs only as the child of TestLockOfDeadProcessIsFree")
	}
	s, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("t1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stdout.WriteString("locked\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Minute)
}

// A lock dies with its process: a daemon killed while it held a task leaves it free.
func TestLockOfDeadProcessIsFree(t *testing.T) {
	data := t.TempDir()
	s, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Create(Meta{ID: "t1", Created: time.Now(), Updated: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, l)

	cmd := exec.Command(os.Args[0], "-test.run=^TestLockHelperProcess$", "-test.v")
	cmd.Env = append(os.Environ(), helperEnv+"="+data)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	defer func() {
		if !killed {
			_ = cmd.Process.Kill() // the test failed before its own kill
			_ = cmd.Wait()
		}
	}()
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if lines.Text() == "locked" {
			break
		}
	}

	_, err = s.Load("t1")
	var le *LockedError
	if !errors.As(err, &le) || le.PID != cmd.Process.Pid {
		t.Fatalf("Load while the child holds the task: %v, want its pid %d", err, cmd.Process.Pid)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // "signal: killed" is the expected outcome
	killed = true
	got, err := s.Load("t1")
	if err != nil {
		t.Fatalf("Load after the holder died: %v", err)
	}
	mustClose(t, got.Log)
}
