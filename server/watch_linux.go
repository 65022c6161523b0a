//go:build linux

package server

import (
	"path/filepath"

	"github.com/cairnhq/cairn/core/watch"
)

// watchDir tells fire, through hub (the daemon's one watcher, inotify underneath), each event
// on path's name in its directory, on the directory itself (removed or moved: the name is then
// gone too) or lost in an overflow (it may have hidden one). It reports false when the
// directory cannot be watched (the caller polls). fire runs on the hub's goroutine: it must
// not wait for the hub. stop ends the watch.
func watchDir(hub *watch.Hub, path string, fire func()) (stop func(), ok bool) {
	dir, name := filepath.Clean(filepath.Dir(path)), filepath.Base(path)
	return hub.Watch(dir, func(ev watch.Event) {
		if ev.Lost || filepath.Base(ev.Path) == name || ev.Path == dir {
			fire()
		}
	})
}
