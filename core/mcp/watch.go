package mcp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watch reloads the settings when the file changes. The folder is watched, not the file:
// editors save by renaming a new file over the old one, and the file may not exist yet.
func (h *Hub) watch() error {
	dir := filepath.Dir(h.opts.SettingsPath)
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("mcp: watcher: %w", err)
	}
	if err := w.Add(dir); err != nil {
		return fmt.Errorf("mcp: watching %s: %w", dir, err)
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return w.Close()
	}
	h.stopWatch = w.Close
	h.bg.Add(1)
	h.mu.Unlock()
	name := filepath.Clean(h.opts.SettingsPath)
	go func() {
		defer h.bg.Done()
		// A save is often several events (truncate, write, rename): reload once they settle.
		settle := time.NewTimer(time.Hour)
		settle.Stop()
		defer settle.Stop()
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if filepath.Clean(ev.Name) != name || ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename|fsnotify.Remove) == 0 {
					continue
				}
				settle.Reset(settleDelay)
			case <-settle.C:
				if h.midWrite() {
					continue // the write that emptied it will send another event
				}
				if err := h.Reload(); err != nil {
					h.opts.Logger.Warn("mcp: settings changed", "err", err)
				}
			case err, ok := <-w.Errors:
				if !ok {
					return
				}
				h.opts.Logger.Warn("mcp: watcher", "err", err)
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
