package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cairnhq/cairn/server"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// statusCommand says which daemon serves the data dir, how long it stays without a client, and which
// folders it keeps a warm search index of, ready or still building (docs/cli.md, "Keeping a
// daemon warm"). No daemon is a fact it reports, with exit 0, like doctor.
func statusCommand(ctx context.Context, args []string, stdio IO) int {
	fs := newFlags("status", stdio)
	dataFlag := fs.String("data-dir", "", "data directory (the editor's daemon's, by default)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		stdio.errf("cairn status: takes no arguments\n")
		return exitUsage
	}
	dir := dataDir(*dataFlag)
	c, err := attach(ctx, dir)
	if errors.Is(err, server.ErrNoDaemon) {
		return stdio.emit(fmt.Sprintf("no daemon serves %s: the next task starts one, and its search index starts cold\n"+
			"  keep a daemon warm with: cairn serve --data-dir %s --idle-exit 0\n", dir, dir))
	}
	if err != nil {
		stdio.errf("cairn status: %v\n", err)
		return exitFailure
	}
	defer func() { _ = c.Close() }() // read-only: nothing to lose
	st, err := c.state.GetState(ctx, &cairnv1.GetStateRequest{})
	if err != nil {
		stdio.errf("cairn status: %s\n", statusText(err))
		return exitFailure
	}
	return stdio.emit(statusReport(st))
}

// statusReport is the status report of the daemon whose state is st.
func statusReport(st *cairnv1.GetStateResponse) string {
	var b strings.Builder
	fmt.Fprintf(&b, "daemon: pid %d, cairn %s, data dir %s\n", st.GetPid(), st.GetVersion(), st.GetDataDir())
	if s := st.GetIdleExitSeconds(); s > 0 {
		fmt.Fprintf(&b, "  it exits %s after its last client leaves, and its warm indexes with it (cairn serve --idle-exit 0 keeps it)\n",
			time.Duration(s)*time.Second)
	} else {
		b.WriteString("  it stays until it is stopped\n")
	}
	if len(st.GetIndexes()) == 0 {
		b.WriteString("search indexes: none yet (a folder's index is built on its first search)\n")
	}
	for _, ix := range st.GetIndexes() {
		if ix.GetReady() {
			fmt.Fprintf(&b, "search index: %s: ready, %d files\n", ix.GetRoot(), ix.GetFiles())
		} else {
			fmt.Fprintf(&b, "search index: %s: building (%d files so far; searches scan meanwhile)\n", ix.GetRoot(), ix.GetFiles())
		}
	}
	return b.String()
}
