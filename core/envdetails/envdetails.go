// Package envdetails renders the <environment_details> block appended to every user turn
// (docs/prompt.md, "Environment details"): the workspace roots, what the editor shows, what the
// terminals printed, files someone else changed behind the agent's back, the time, on the first
// turn the file list, the project configuration and the tools on PATH, then the context usage and
// the mode.
package envdetails

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/listfiles"
	"github.com/cairnhq/cairn/core/tools/shell"
	"github.com/cairnhq/cairn/core/workspace"
)

// Input is what one turn's details come from. Nil parts leave their sections out (Editor: the
// file sections say there is nothing; Terminals, Recent: no section).
type Input struct {
	IDE       string // "VSCode", "Cairn CLI"
	Workspace *workspace.Workspace
	// Lists are the daemon's file lists: the file list of a root whose list is held open is
	// read from it, as list_files does (nil: from the disk).
	Lists     *workspace.Lists
	Editor    tools.Editor
	Terminals *shell.Registry
	// Recent tracks files the agent saw; its changes are reported once each.
	Recent *Tracker
	// First adds the file list, the workspace configuration and the CLI tools.
	First         bool
	Mode          string // "act" or "plan"
	ContextTokens int64
	ContextWindow int64 // 0: 128K
	// Now is the clock (zero: time.Now()).
	Now time.Time
	// CLITools lists the tools on PATH (nil: DetectCLITools).
	CLITools func() []string
}

// busyWait is how long a turn waits for busy terminals to settle (docs/prompt.md, "Environment
// details").
const busyWait = 15 * time.Second

// defaultWindow is the context window assumed when the model table does not know it.
const defaultWindow = 128_000

// Build renders the block. It never fails: a part that cannot be read is left out or says so.
func Build(ctx context.Context, in Input) string {
	if in.Terminals != nil && in.Terminals.Busy() {
		in.Terminals.WaitIdle(ctx, busyWait)
	}
	ws := in.Workspace
	var b strings.Builder
	b.WriteString("<environment_details>\n")
	if ws != nil && len(ws.Roots()) > 1 {
		b.WriteString("# Workspace Roots\n")
		for _, r := range ws.Roots() {
			fmt.Fprintf(&b, "- %s: %s%s\n", r.Name, r.Path, vcsNote(r.Path))
		}
		fmt.Fprintf(&b, "Primary workspace: %s\n\n", ws.Roots()[0].Name)
	}

	var visible, tabs []string
	if in.Editor != nil {
		visible = editorFiles(ctx, ws, in.Editor.VisibleFiles)
		tabs = editorFiles(ctx, ws, in.Editor.OpenTabs)
	}
	section(&b, "# "+in.IDE+" Visible Files", visible, text("no_visible"))
	section(&b, "# "+in.IDE+" Open Tabs", tabs, text("no_tabs"))

	if in.Terminals != nil {
		running, finished := in.Terminals.Snapshot()
		terminals(&b, "# Actively Running Terminals", running, in.now())
		terminals(&b, "# Inactive Terminals with Completed Process Output", finished, in.now())
	}

	if in.Recent != nil {
		if mods := in.Recent.Take(); len(mods) > 0 {
			b.WriteString("# Recently Modified Files\n" + text("recently_modified") + "\n")
			for _, p := range mods {
				b.WriteString(rel(ws, p) + "\n")
			}
			b.WriteString("\n")
		}
	}

	now := in.now()
	fmt.Fprintf(&b, "# Current Time\n%s\n\n", FormatTime(now))

	if in.First && ws != nil {
		root := ws.Root()
		fmt.Fprintf(&b, "# Current Working Directory (%s) Files\n%s\n\n", root, fileList(ctx, ws, in.Lists, root, ""))
		// Every other root gets its own list, its entries in the `name:path` form the tools take.
		for _, r := range ws.Roots()[1:] {
			fmt.Fprintf(&b, "# Workspace Root %s (%s) Files\n%s\n\n", r.Name, r.Path, fileList(ctx, ws, in.Lists, r.Path, r.Name+":"))
		}
		fmt.Fprintf(&b, "# Workspace Configuration\n%s\n\n", workspaceConfig(ctx, ws))
		detect := in.CLITools
		if detect == nil {
			detect = DetectCLITools
		}
		found := text("no_tools")
		if names := detect(); len(names) > 0 {
			found = strings.Join(names, ", ")
		}
		fmt.Fprintf(&b, "# Detected CLI Tools\n%s\n\n", found)
	}

	fmt.Fprintf(&b, "# Context Window Usage\n%s\n\n", ContextUsage(in.ContextTokens, in.ContextWindow))
	b.WriteString("# Current Mode\n")
	if in.Mode == "plan" {
		b.WriteString(text("plan_mode") + "\n")
	} else {
		b.WriteString(text("act_mode") + "\n")
	}
	b.WriteString("</environment_details>")
	return b.String()
}

// ContextUsage renders "12,345 / 128K tokens used (10%)" (the percentage rounded, as
// docs/prompt.md, "Environment details", shows it).
func ContextUsage(tokens, window int64) string {
	if window <= 0 {
		window = defaultWindow
	}
	return fmt.Sprintf("%s / %dK tokens used (%d%%)", thousands(tokens), window/1000, (tokens*100+window/2)/window)
}

// editorFiles returns the editor's files that exist and the ignore file allows, as the model
// addresses them (root-relative inside the workspace).
func editorFiles(ctx context.Context, ws *workspace.Workspace, fn func(context.Context) ([]string, error)) []string {
	paths, err := fn(ctx)
	if err != nil {
		return nil // a host that cannot tell is shown as showing nothing
	}
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			if ws == nil {
				continue
			}
			p = filepath.Join(ws.Root(), p)
		}
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			continue // untitled buffers, deleted files
		}
		if ws != nil && ws.Ignored(p) {
			continue
		}
		if r := rel(ws, p); !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

func rel(ws *workspace.Workspace, abs string) string {
	if ws == nil {
		return filepath.ToSlash(abs)
	}
	return ws.Rel(abs)
}

func section(b *strings.Builder, title string, items []string, none string) {
	b.WriteString(title + "\n")
	if len(items) == 0 {
		b.WriteString(none + "\n\n")
		return
	}
	b.WriteString(strings.Join(items, "\n") + "\n\n")
}

func terminals(b *strings.Builder, title string, ts []shell.TerminalState, now time.Time) {
	if len(ts) == 0 {
		return
	}
	b.WriteString(title + "\n")
	for _, t := range ts {
		fmt.Fprintf(b, "## Command %d: `%s`\n", t.ID, t.Command)
		if !t.Started.IsZero() {
			ports := ""
			if len(t.Ports) > 0 {
				list := make([]string, len(t.Ports))
				for i, p := range t.Ports {
					list[i] = strconv.Itoa(p)
				}
				ports = fmt.Sprintf(text("listening"), strings.Join(list, ", "))
			}
			fmt.Fprintf(b, text("running_for")+"\n", duration(now.Sub(t.Started)), ports, t.ID)
		}
		// The backlog of a chatty command is bounded like a tool result (head and tail).
		if out := strings.TrimRight(shell.Bound(t.NewOutput, 0, 0), "\n"); strings.TrimSpace(out) != "" {
			fmt.Fprintf(b, "### New Output\n%s\n", out)
		}
	}
	b.WriteString("\n")
}

// now is in.Now, or the clock's time when unset.
func (in Input) now() time.Time {
	if in.Now.IsZero() {
		return time.Now()
	}
	return in.Now
}

// duration renders how long a command has run, to the second: "45s", "3m 20s", "2h 5m".
func duration(d time.Duration) string {
	s := max(int(d/time.Second), 0) // a test's fixed clock may lie before the start
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", s)
	case s < 3600:
		return fmt.Sprintf("%dm %ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh %dm", s/3600, s%3600/60)
}

// fileList is a root's recursive listing, each entry prefixed with label.
func fileList(ctx context.Context, ws *workspace.Workspace, lists *workspace.Lists, root, label string) string {
	var tree listfiles.Tree = ws
	if lists != nil {
		tree = listfiles.Listed{Tree: ws, Lists: lists}
	}
	entries, truncated, err := listfiles.List(ctx, tree, root, true, listfiles.DefaultLimit)
	switch {
	case errors.Is(err, listfiles.ErrRefused):
		return text("list_refused")
	case err != nil:
		return fmt.Sprintf(text("list_failed"), err)
	}
	for i, e := range entries {
		entries[i] = label + e
	}
	return listfiles.Format(entries, truncated)
}

// vcsNote names the version control of a root for the roots list.
func vcsNote(root string) string {
	if _, err := os.Stat(filepath.Join(root, ".git")); err == nil {
		return " (git)"
	}
	return ""
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
