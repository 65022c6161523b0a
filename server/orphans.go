package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/cairnhq/cairn/server/hostbridge"

	"github.com/cairnhq/cairn/core/task"
)

// defaultWindowGrace is how long a window's tasks wait for its editor to come back.
const defaultWindowGrace = 15 * time.Second

// stopOrphans cancels the running tasks of a window whose editor left and did not reconnect
// within grace. They keep their history and ask to be resumed, so the window can pick them up
// when it opens again; meanwhile nothing runs that nobody sees.
func stopOrphans(tasks *task.Manager, hosts *hostbridge.Registry, id string, grace time.Duration, log *slog.Logger) {
	if grace <= 0 {
		grace = defaultWindowGrace
	}
	time.AfterFunc(grace, func() {
		if _, back := hosts.Get(id); back {
			return
		}
		for _, t := range tasks.Tasks() {
			if t.HostID() != id || t.Done() == nil {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := t.Cancel(ctx)
			cancel()
			log.Info("cancelled a task whose window closed", "task", t.ID(), "host", id, "err", err)
		}
	})
}
