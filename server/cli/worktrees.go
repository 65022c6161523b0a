package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/server"
)

const worktreesUsage = "usage: cairn worktrees [-C DIR] [--data-dir DIR] list [--json] | merge ID [--mode uncommitted|commit] | discard ID [--yes]\n"

// worktreesCommand runs `cairn worktrees list|merge|discard` for the repository at -C, through
// the daemon serving the data dir when one runs, else a private one (docs/cli.md).
func worktreesCommand(ctx context.Context, args []string, stdio IO) int {
	fs := newFlags("worktrees", stdio)
	dirs := dirFlags(fs, false, "a folder in the repository")
	dataFlag := fs.String("data-dir", "", "data directory")
	asJSON := fs.Bool("json", false, "list: one JSON object per line")
	yes := fs.Bool("yes", false, "discard: do not ask")
	mode := fs.String("mode", "", "merge: uncommitted or commit (default: the worktreeMergeMode setting)")
	pos, code, ok := parseInterspersed(fs, args)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		stdio.errf("%s", worktreesUsage)
		return exitUsage
	}
	sub, rest := pos[0], pos[1:]
	want := map[string]int{"list": 0, "merge": 1, "discard": 1}
	n, known := want[sub]
	if !known {
		stdio.errf("cairn worktrees: unknown command %q (list, merge, discard)\n", sub)
		return exitUsage
	}
	if len(rest) != n {
		stdio.errf("%s", worktreesUsage)
		return exitUsage
	}
	if *mode != "" && *mode != "uncommitted" && *mode != "commit" {
		stdio.errf("cairn worktrees: --mode must be uncommitted or commit\n")
		return exitUsage
	}
	if sub == "discard" && !*yes && !stdio.TTY {
		stdio.errf("cairn worktrees: discard asks first; without a terminal, pass --yes\n")
		return exitUsage
	}
	root, err := filepath.Abs(*dirs.one())
	if err != nil {
		stdio.errf("cairn worktrees: %v\n", err)
		return exitUsage
	}
	return withDataDirDaemon(ctx, *dataFlag, stdio, func(c *client) int {
		switch sub {
		case "list":
			return worktreesList(ctx, c, root, *asJSON, stdio)
		case "merge":
			return worktreesMerge(ctx, c, rest[0], *mode, stdio)
		}
		return worktreesDiscard(ctx, c, rest[0], *yes, stdio)
	})
}

// parseInterspersed parses flags wherever they stand among the positional arguments.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, int, bool) {
	var pos []string
	for {
		if code, ok := parseFlags(fs, args); !ok {
			return nil, code, false
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, 0, true
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// withDataDirDaemon runs fn with the daemon serving the data dir, or with a private daemon on
// it (with the command line's settings: flags aside, as `cairn run` reads them) when none runs.
func withDataDirDaemon(ctx context.Context, dataFlag string, stdio IO, fn func(*client) int) int {
	dd := dataDir(dataFlag)
	c, err := attach(ctx, dd)
	if err == nil {
		defer closeClient(stdio, c)
		return fn(c)
	}
	if !errors.Is(err, server.ErrNoDaemon) {
		stdio.errf("cairn: %v\n", err)
		return exitFailure
	}
	settings, err := (&settingsFlags{}).settings()
	if err != nil {
		stdio.errf("cairn: %v\n", err)
		return exitUsage
	}
	return startPrivate(ctx, dd, settings, stdio, fn)
}

// worktreeLine is one `cairn worktrees list --json` line.
type worktreeLine struct {
	TaskID       string  `json:"task_id"`
	Title        string  `json:"title"`
	Branch       string  `json:"branch"`
	Path         string  `json:"path"`
	Status       string  `json:"status"`
	FilesChanged int32   `json:"files_changed"`
	LinesAdded   int32   `json:"lines_added"`
	LinesRemoved int32   `json:"lines_removed"`
	Cost         float64 `json:"cost"`
	// CostKnown is false when the model's prices are unknown: cost is then no figure.
	CostKnown bool   `json:"cost_known"`
	Merged    string `json:"merged,omitempty"`
}

// worktreeCost is a board row's cost by the one rule of every view (README, "One cost truth"):
// a figure only when it is known.
func worktreeCost(w *cairnv1.WorktreeInfo) string {
	switch {
	case w.GetIncluded():
		return "included"
	case !w.GetCostKnown():
		return "price unknown"
	}
	return fmt.Sprintf("$%.4f", w.GetCost())
}

func worktreesList(ctx context.Context, c *client, root string, asJSON bool, stdio IO) int {
	resp, err := c.ws.ListWorktrees(ctx, &cairnv1.ListWorktreesRequest{Repo: root})
	if err != nil {
		stdio.errf("cairn worktrees: %v\n", statusText(err))
		return exitFailure
	}
	var b strings.Builder
	if asJSON {
		for _, w := range resp.GetWorktrees() {
			line, err := json.Marshal(worktreeLine{TaskID: w.GetTaskId(), Title: w.GetTitle(), Branch: w.GetBranch(), Path: w.GetPath(),
				Status: w.GetStatus(), FilesChanged: w.GetFilesChanged(), LinesAdded: w.GetLinesAdded(), LinesRemoved: w.GetLinesRemoved(),
				Cost: w.GetCost(), CostKnown: w.GetCostKnown() || w.GetIncluded(), Merged: w.GetMerged()})
			if err != nil {
				stdio.errf("cairn worktrees: %v\n", err)
				return exitFailure
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		return stdio.emit(b.String())
	}
	if len(resp.GetWorktrees()) == 0 {
		return stdio.emit("no worktrees\n")
	}
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	rows := []string{"TASK\tSTATUS\tBRANCH\tCHANGES\tCOST\tTITLE\n"}
	for _, w := range resp.GetWorktrees() {
		st := w.GetStatus()
		if w.GetMerged() != "" {
			st += ", merged"
		}
		rows = append(rows, fmt.Sprintf("%s\t%s\t%s\t%s +%d -%d\t%s\t%s\n", w.GetTaskId(), st, w.GetBranch(),
			files(int(w.GetFilesChanged())), w.GetLinesAdded(), w.GetLinesRemoved(), worktreeCost(w), w.GetTitle()))
	}
	for _, r := range rows {
		if _, err := io.WriteString(tw, r); err != nil {
			stdio.errf("cairn worktrees: %v\n", err)
			return exitFailure
		}
	}
	if err := tw.Flush(); err != nil {
		stdio.errf("cairn worktrees: %v\n", err)
		return exitFailure
	}
	return stdio.emit(b.String())
}

func worktreesMerge(ctx context.Context, c *client, id, mode string, stdio IO) int {
	resp, err := c.ws.MergeWorktree(ctx, &cairnv1.MergeWorktreeRequest{TaskId: id, Mode: mode})
	if err != nil {
		stdio.errf("cairn worktrees: %v\n", statusText(err))
		return exitFailure
	}
	if len(resp.GetFiles()) == 0 {
		if w := findWorktree(ctx, c, id); w != nil && w.GetMerged() != "" {
			return stdio.emit(fmt.Sprintf("nothing new to merge: task %s's changes were merged at %s, and it changed nothing since\n", id, w.GetMerged()))
		}
		return stdio.emit("nothing to merge: the task changed nothing\n")
	}
	how := "as uncommitted changes"
	if resp.GetCommit() != "" {
		how = "in merge commit " + resp.GetCommit()
	}
	return stdio.emit(fmt.Sprintf("merged %s %s: %s\n", files(len(resp.GetFiles())), how, strings.Join(resp.GetFiles(), ", ")))
}

func worktreesDiscard(ctx context.Context, c *client, id string, yes bool, stdio IO) int {
	if !yes {
		info := findWorktree(ctx, c, id)
		what := "task " + id + "'s worktree"
		if info != nil {
			what = fmt.Sprintf("%s (branch %s, %d changed files)", info.GetPath(), info.GetBranch(), info.GetFilesChanged())
		}
		stdio.errf("Discard %s? Its changes are lost. [y/N] ", what)
		if !confirmed(stdio) {
			stdio.errf("not discarded\n")
			return exitFailure
		}
	}
	if _, err := c.ws.DiscardWorktree(ctx, &cairnv1.DiscardWorktreeRequest{TaskId: id}); err != nil {
		stdio.errf("cairn worktrees: %v\n", statusText(err))
		return exitFailure
	}
	return stdio.emit("discarded " + id + "\n")
}

// files says how many files, in words.
func files(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

// confirmed reads one answer line from the terminal: y or yes.
func confirmed(stdio IO) bool {
	var line [64]byte
	n, _ := stdio.In.Read(line[:]) // no answer (EOF, an error) is a no
	a := strings.ToLower(strings.TrimSpace(string(line[:n])))
	return a == "y" || a == "yes"
}

// findWorktree returns task id's entry on the board, or nil.
func findWorktree(ctx context.Context, c *client, id string) *cairnv1.WorktreeInfo {
	resp, err := c.ws.ListWorktrees(ctx, &cairnv1.ListWorktreesRequest{})
	if err != nil {
		return nil
	}
	for _, w := range resp.GetWorktrees() {
		if w.GetTaskId() == id {
			return w
		}
	}
	return nil
}

// announceWorktree tells a `cairn run --worktree` where its task works.
func announceWorktree(ctx context.Context, c *client, id string, stdio IO) {
	if w := findWorktree(ctx, c, id); w != nil {
		stdio.errf("task %s works in %s on branch %s\n", id, w.GetPath(), w.GetBranch())
	}
}
