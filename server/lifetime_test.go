package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/watch"
)

// fakeTimers records the timers a lifetime arms so a test fires them by hand.
type fakeTimers struct {
	armed []*fakeTimer
}

type fakeTimer struct {
	f       func()
	stopped bool
}

func (t *fakeTimer) Stop() bool {
	was := !t.stopped
	t.stopped = true
	return was
}

func (ft *fakeTimers) afterFunc(_ time.Duration, f func()) stopper {
	t := &fakeTimer{f: f}
	ft.armed = append(ft.armed, t)
	return t
}

// fireLast runs the newest timer's function as the runtime would, even if it was stopped too
// late (a client arrived while the timer was firing).
func (ft *fakeTimers) fireLast() {
	if n := len(ft.armed); n > 0 {
		ft.armed[n-1].f()
	}
}

func TestLifetime(t *testing.T) {
	tests := []struct {
		name     string
		steps    string // s: start, e: a client enters, l: it leaves, f: the newest timer fires
		expired  int
		timers   int // how many timers were armed in all
		runnings int // timers never stopped (pending or fired)
	}{
		{"nobody ever connects", "s f", 1, 1, 1},
		{"a client stays", "s e", 0, 1, 0},
		{"the last client leaves, grace ends", "s e l f", 1, 2, 1},
		{"one of two clients leaves", "s e e l", 0, 1, 0},
		{"a client returns within the grace", "s e l e", 0, 2, 0},
		{"a stale timer fires after a client returned", "s e l e f", 0, 2, 0},
		{"expiry happens once", "s f e l f", 1, 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var timers fakeTimers
			expired := 0
			l := newLifetime(time.Minute, func() { expired++ })
			l.afterFunc = timers.afterFunc
			for _, step := range strings.Fields(tt.steps) {
				switch step {
				case "s":
					l.start()
				case "e":
					l.enter()
				case "l":
					l.leave()
				case "f":
					timers.fireLast()
				}
			}
			running := 0
			for _, tm := range timers.armed {
				if !tm.stopped {
					running++
				}
			}
			if expired != tt.expired || len(timers.armed) != tt.timers || running != tt.runnings {
				t.Fatalf("expired %d, timers %d, running %d; want %d, %d, %d",
					expired, len(timers.armed), running, tt.expired, tt.timers, tt.runnings)
			}
		})
	}
}

// TestWatchExecutable runs the watch with change notification (where the system has it) and
// with polling.
func TestWatchExecutable(t *testing.T) {
	for _, mode := range []string{"notify", "poll"} {
		t.Run(mode, func(t *testing.T) {
			exe, hub, first := exeWatchSetup(t, mode)
			// Another file in the directory changing is no upgrade.
			if err := os.WriteFile(exe+".log", []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			fired := make(chan struct{})
			w := watchExecutable(hub, exe, first, 5*time.Millisecond, func() { close(fired) })
			defer w.Stop()
			if err := os.WriteFile(exe+".log", []byte("more"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(exe+".new", []byte("v2"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(exe+".new", exe); err != nil {
				t.Fatal(err)
			}
			waitFired(t, fired, "the replaced executable was not noticed")
		})
	}
}

// TestWatchExecutableSeesEarlierChange: the watch is set up beside the handshake, so a file
// replaced between the daemon's look at it and the watch is told as well, in both modes.
func TestWatchExecutableSeesEarlierChange(t *testing.T) {
	for _, mode := range []string{"notify", "poll"} {
		t.Run(mode, func(t *testing.T) {
			exe, hub, first := exeWatchSetup(t, mode)
			if err := os.Remove(exe); err != nil {
				t.Fatal(err)
			}
			fired := make(chan struct{})
			w := watchExecutable(hub, exe, first, 5*time.Millisecond, func() { close(fired) })
			defer w.Stop()
			waitFired(t, fired, "the executable removed before the watch was not noticed")
		})
	}
}

// exeWatchSetup makes an executable to watch, in mode "notify" (the system's) or "poll", and
// a hub, and returns them with the file as it is.
func exeWatchSetup(t *testing.T, mode string) (string, *watch.Hub, os.FileInfo) {
	t.Helper()
	if mode == "poll" {
		notifyDir = func(*watch.Hub, string, func()) (func(), bool) { return nil, false }
		t.Cleanup(func() { notifyDir = watchDir })
	}
	exe := filepath.Join(t.TempDir(), "cairn")
	if err := os.WriteFile(exe, []byte("v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	first, err := os.Stat(exe)
	if err != nil {
		t.Fatal(err)
	}
	hub := watch.New()
	t.Cleanup(func() {
		if err := hub.Close(); err != nil {
			t.Error(err)
		}
	})
	return exe, hub, first
}

func waitFired(t *testing.T, fired <-chan struct{}, msg string) {
	t.Helper()
	select {
	case <-fired:
	case <-time.After(30 * time.Second):
		t.Fatal(msg)
	}
}
