package codedefs

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func goFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "a.go")
	if err := os.WriteFile(p, []byte("package a\n\nfunc A() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// ask parses p with w and checks the answer names A.
func ask(t *testing.T, w *worker, p string) int {
	t.Helper()
	got, err := w.parse(t.Context(), []string{p})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].Defs) != 1 || got[0].Defs[0].Name != "A" {
		t.Fatalf("parse = %+v, want A", got)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cmd.Process.Pid
}

func stopWorker(t *testing.T, w *worker) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.cmd != nil {
		if err := w.stop(); err != nil {
			t.Errorf("stopping a waiting helper: %v", err)
		}
	}
}

// One helper answers the requests that follow each other; one that died while idle is
// replaced at the next request, and a cancelled request leaves none behind.
func TestWorkerLife(t *testing.T) {
	p := goFile(t)
	var w worker
	t.Cleanup(func() { stopWorker(t, &w) })
	first := ask(t, &w, p)
	if again := ask(t, &w, p); again != first {
		t.Errorf("second request ran in helper %d, want the warm %d", again, first)
	}

	w.mu.Lock()
	if err := w.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-w.exited
	w.mu.Unlock()
	if next := ask(t, &w, p); next == first {
		t.Errorf("a killed helper (%d) was asked again", first)
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := w.parse(ctx, []string{p}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled request: err = %v, want context.Canceled", err)
	}
	ask(t, &w, p)
}

// A helper left idle ends by itself, and the next request starts another.
func TestWorkerIdleExit(t *testing.T) {
	old := idleExit
	idleExit = 50 * time.Millisecond
	t.Cleanup(func() { idleExit = old })
	p := goFile(t)
	var w worker
	t.Cleanup(func() { stopWorker(t, &w) })
	first := ask(t, &w, p)
	w.mu.Lock()
	exited := w.exited
	w.mu.Unlock()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the idle helper is still running")
	}
	w.mu.Lock()
	running := w.cmd != nil
	w.mu.Unlock()
	if running {
		t.Error("the worker still holds the helper that ended")
	}
	if next := ask(t, &w, p); next == first {
		t.Errorf("the ended helper (%d) was asked again", first)
	}
}

// A helper that dies during a request fails that request with how it ended and what it said;
// the next request starts a fresh one.
func TestWorkerCrash(t *testing.T) {
	p := goFile(t)
	var w worker
	t.Cleanup(func() { stopWorker(t, &w) })
	starts := 0
	w.command = func() (*exec.Cmd, error) {
		starts++
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashEnv+"=1")
		return cmd, nil
	}
	for i := 1; i <= 2; i++ {
		_, err := w.parse(t.Context(), []string{p})
		if err == nil || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "grammar fault at byte 42") {
			t.Fatalf("request %d: err = %v, want the exit status and the helper's stderr", i, err)
		}
		if starts != i {
			t.Fatalf("request %d ran in helper start %d, want a fresh helper each", i, starts)
		}
	}
	w.mu.Lock()
	held := w.cmd != nil
	w.mu.Unlock()
	if held {
		t.Error("the worker holds the helper that crashed")
	}
}
