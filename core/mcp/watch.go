package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/cairnhq/cairn/core/watch"
)

// watch reloads the settings when the file changes. The folder is watched, not the file:
// editors save by renaming a new file over the old one, and the file may not exist yet. The
// watch is the daemon's one file-system hub (Options.Watch; docs/architecture.md, "Watching
// files"), or a hub of this MCP hub's own when it was given none.
func (h *Hub) watch() error {
	fs, own := h.opts.Watch, h.opts.Watch == nil
	if own {
		fs = watch.New()
	}
	closeOwn := func() error {
		if own {
			return fs.Close()
		}
		return nil
	}
	dir := filepath.Dir(h.opts.SettingsPath)
	name := filepath.Clean(h.opts.SettingsPath)
	// changed holds one wake-up: the handler runs on the file hub's goroutine and never waits.
	changed := make(chan struct{}, 1)
	// The settings were read before the watch was in place: one reload (a no-op when nothing
	// changed) covers a save in between.
	changed <- struct{}{}
	stop, ok := fs.Watch(dir, func(ev watch.Event) {
		if ev.Lost || ev.Path == name && ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename|fsnotify.Remove) != 0 {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	if !ok {
		return errors.Join(fmt.Errorf("mcp: %s cannot be watched", dir), closeOwn())
	}
	quit := make(chan struct{})
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		stop()
		return closeOwn()
	}
	h.stopWatch = func() error {
		stop()
		close(quit)
		return closeOwn()
	}
	h.bg.Add(1)
	h.mu.Unlock()
	go func() {
		defer h.bg.Done()
		// A save is often several events (truncate, write, rename): reload once they settle.
		settle := time.NewTimer(time.Hour)
		settle.Stop()
		defer settle.Stop()
		for {
			select {
			case <-quit:
				return
			case <-changed:
				settle.Reset(settleDelay)
			case <-settle.C:
				if h.midWrite() {
					continue // the write that emptied it will send another event
				}
				if err := h.Reload(); err != nil {
					h.opts.Logger.Warn("mcp: settings changed", "err", err)
				}
			}
		}
	}()
	return nil
}

// settleDelay is how long the settings file must be quiet before a reload.
const settleDelay = 100 * time.Millisecond

// midWrite reports a settings file that exists but is empty: an editor caught between
// truncating and writing it. An empty file is never taken as "remove every server" from the
// watcher; deleting the file or emptying mcpServers does that.
func (h *Hub) midWrite() bool {
	b, err := os.ReadFile(h.opts.SettingsPath)
	return err == nil && len(bytes.TrimSpace(b)) == 0
}
