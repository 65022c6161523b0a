package mcp

import (
	"fmt"
	"path/filepath"

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
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				if filepath.Clean(ev.Name) != name || ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename|fsnotify.Remove) == 0 {
					continue
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
