//go:build linux

package server

import (
	"context"
	"path/filepath"

	"github.com/fsnotify/fsnotify"
)

// watchDir waits (fsnotify, inotify underneath) for events on path's name in its directory and
// calls replaced once changed confirms one. It reports false when the directory cannot be
// watched (the caller polls). The watch ends with ctx or once replaced was called.
func watchDir(ctx context.Context, path string, changed func() bool, replaced func()) bool {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return false
	}
	dir, name := filepath.Dir(path), filepath.Base(path)
	if err := w.Add(dir); err != nil {
		_ = w.Close() // nothing was read from it; the caller falls back to polling
		return false
	}
	go func() {
		defer func() { _ = w.Close() }() // the watch holds no data
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				// The name itself, or the directory (removed or moved: the name is then gone too).
				if (filepath.Base(ev.Name) == name || filepath.Clean(ev.Name) == filepath.Clean(dir)) && changed() {
					replaced()
					return
				}
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
				// An overflow may have hidden the event: look at the file itself.
				if changed() {
					replaced()
					return
				}
			}
		}
	}()
	return true
}
