package server

import (
	"context"
	"os"
	"sync"
	"time"
)

// A shared daemon outlives the window that started it. It ends itself when nobody uses it any
// more (the idle grace after its last client left) or when its executable was replaced or
// removed (an upgrade: the next client starts the new binary).

// stopper is the part of *time.Timer the lifetime uses, so tests can fire timers by hand.
type stopper interface{ Stop() bool }

// lifetime counts the daemon's clients: every open stream (a host bridge, a UI subscription, a
// `cairn run`) and every call in flight. When the count drops to zero it arms a timer for the
// grace; a new client disarms it; if it fires, expire is called (once).
type lifetime struct {
	grace     time.Duration
	afterFunc func(time.Duration, func()) stopper
	expire    func()

	// mu guards clients, timer and expired.
	mu      sync.Mutex
	clients int
	timer   stopper
	expired bool
}

func newLifetime(grace time.Duration, expire func()) *lifetime {
	l := &lifetime{grace: grace, expire: expire,
		afterFunc: func(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }}
	return l
}

// start arms the first timer: a daemon nobody connects to ends after the grace too.
func (l *lifetime) start() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.clients == 0 {
		l.arm()
	}
}

func (l *lifetime) enter() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clients++
	if l.timer != nil {
		l.timer.Stop()
		l.timer = nil
	}
}

func (l *lifetime) leave() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clients--
	if l.clients == 0 {
		l.arm()
	}
}

// arm starts the idle timer; mu is held.
func (l *lifetime) arm() {
	if l.expired || l.timer != nil {
		return
	}
	var t stopper
	t = l.afterFunc(l.grace, func() {
		l.mu.Lock()
		// A client that arrived after the timer fired but before we got mu disarmed it.
		if l.timer != t || l.clients > 0 || l.expired {
			l.mu.Unlock()
			return
		}
		l.expired = true
		l.timer = nil
		l.mu.Unlock()
		l.expire()
	})
	l.timer = t
}

// notifyDir is watchDir; tests replace it to exercise the polling.
var notifyDir = watchDir

// watchExecutable calls replaced once path no longer names the file it named at start (renamed
// over, removed, or rewritten: another size or modification time). Where the system tells about
// changes in the directory (inotify) it waits for them, costing nothing while idle; elsewhere it
// stats the file every interval.
func watchExecutable(ctx context.Context, path string, interval time.Duration, replaced func()) error {
	first, err := os.Stat(path)
	if err != nil {
		return err
	}
	changed := func() bool {
		now, err := os.Stat(path)
		return err != nil || !os.SameFile(first, now) || now.Size() != first.Size() || !now.ModTime().Equal(first.ModTime())
	}
	if notifyDir(ctx, path, changed, replaced) {
		return nil
	}
	go func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if changed() {
				replaced()
				return
			}
		}
	}()
	return nil
}
