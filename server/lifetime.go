package server

import (
	"os"
	"sync"
	"time"

	"github.com/cairnhq/cairn/core/watch"
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

// exeWatch is the daemon's watch of its own executable (watchExecutable). Stop ends it and
// waits for its goroutine.
type exeWatch struct {
	unwatch func()        // ends the hub's watch (nil when polling)
	done    chan struct{} // closed by Stop: the polling goroutine returns
	polling sync.WaitGroup
	once    sync.Once
}

// watchExecutable calls replaced, once, when path no longer names first, the file it named at
// start (renamed over, removed, or rewritten: another size or modification time), including a
// change made before the watch was set up. Where the system tells about changes in the
// directory (inotify) it hears them through hub, the daemon's one watcher, costing nothing
// while idle; elsewhere it stats the file every interval on a goroutine of its own. replaced
// runs on the hub's goroutine, that one or the caller's: it must not wait for the daemon to
// stop (the hub closes as the daemon stops).
func watchExecutable(hub *watch.Hub, path string, first os.FileInfo, interval time.Duration, replaced func()) *exeWatch {
	var fired sync.Once
	check := func() bool {
		now, err := os.Stat(path)
		if err != nil || !os.SameFile(first, now) || now.Size() != first.Size() || !now.ModTime().Equal(first.ModTime()) {
			fired.Do(replaced)
			return true
		}
		return false
	}
	w := &exeWatch{done: make(chan struct{})}
	if stop, ok := notifyDir(hub, path, func() { check() }); ok {
		w.unwatch = stop
		check() // what changed while the watch was being set up
		return w
	}
	w.polling.Add(1)
	go func() {
		defer w.polling.Done()
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-tick.C:
			}
			if check() {
				return
			}
		}
	}()
	return w
}

// Stop ends the watch and waits for its goroutine.
func (w *exeWatch) Stop() {
	w.once.Do(func() {
		close(w.done)
		if w.unwatch != nil {
			w.unwatch()
		}
		w.polling.Wait()
	})
}
