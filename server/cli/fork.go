package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task/checkpoints"
)

const forkUsage = "usage: cairn fork [--data-dir DIR] ID --at N | ID --list\n"

// forkCommand runs `cairn fork ID --at N`: a new task from message N of task ID, with the
// conversation and files of that message's checkpoint (README, "Fork from any message"),
// through the daemon serving the data dir, or a private one. N is the message's index, as
// `cairn run --json` prints it and `cairn fork ID --list` lists the messages with a checkpoint.
func forkCommand(ctx context.Context, args []string, stdio IO) int {
	fs := newFlags("fork", stdio)
	dataFlag := fs.String("data-dir", "", "data directory")
	at := fs.Int("at", -1, "the index of the message to fork from")
	list := fs.Bool("list", false, "list the messages that have a checkpoint, with their index")
	pos, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 || (*at < 0) == !*list {
		stdio.errf("%s", forkUsage)
		return exitUsage
	}
	id := pos[0]
	if *list {
		return forkList(id, *dataFlag, stdio)
	}
	return withDataDirDaemon(ctx, *dataFlag, stdio, func(c *client) int {
		r, err := c.tasks.ForkTask(ctx, &cairnv1.ForkTaskRequest{TaskId: id, MessageIndex: int32(*at)})
		if err != nil {
			stdio.errf("cairn fork: %v\n", err)
			return exitFailure
		}
		return stdio.emit(fmt.Sprintf("%s\t%s\tfrom checkpoint %s\n", r.GetTaskId(), r.GetWorkspaceRoot(), short(r.GetCheckpoint())))
	})
}

// forkList prints the messages of a saved task that can be forked from: index, checkpoint and
// the start of the message.
func forkList(id, dataFlag string, stdio IO) int {
	st, err := store.Open(dataDir(dataFlag))
	if err != nil {
		stdio.errf("cairn fork: %v\n", err)
		return exitFailure
	}
	t, err := st.Read(id)
	if err != nil {
		stdio.errf("cairn fork: %v\n", err)
		return exitFailure
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for i, m := range t.Messages {
		if m.Type == msg.Say && m.Kind == msg.SayCheckpointCreated {
			continue // listed with the message it follows
		}
		p, err := checkpoints.Of(t.Messages, i)
		if err != nil {
			continue
		}
		if _, err := fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", i, short(p.Hash), m.Kind, firstLine(m.Text)); err != nil {
			stdio.errf("cairn fork: %v\n", err)
			return exitFailure
		}
	}
	if err := tw.Flush(); err != nil {
		stdio.errf("cairn fork: %v\n", err)
		return exitFailure
	}
	return stdio.emit(b.String())
}

func short(hash string) string {
	if len(hash) > 7 {
		return hash[:7]
	}
	return hash
}
