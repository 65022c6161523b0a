// Package envdetails renders the <environment_details> block appended to every user turn
// (spec §5): what the editor shows, what the terminals did, the time, the first-turn file list,
// the context usage and the mode.
package envdetails

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/listfiles"
	"github.com/cairnhq/cairn/core/tools/shell"
	"github.com/cairnhq/cairn/core/workspace"
)

// Input is what one turn's details come from.
type Input struct {
	IDE           string // "VSCode", "Cairn CLI"
	Workspace     *workspace.Workspace
	Editor        tools.Editor
	Terminals     *shell.Registry
	First         bool
	Mode          string
	ContextTokens int64
	ContextWindow int64
	Now           time.Time
}

// busyWait is how long a turn waits for busy terminals to settle (spec §5).
const busyWait = 15 * time.Second

// Build renders the block.
func Build(ctx context.Context, in Input) string {
	if in.Terminals != nil && in.Terminals.Busy() {
		in.Terminals.WaitIdle(ctx, busyWait)
	}
	var b strings.Builder
	b.WriteString("<environment_details>\n")
	ws := in.Workspace
	if ws != nil && len(ws.Roots()) > 1 {
		b.WriteString("# Workspace Roots\n")
		for _, r := range ws.Roots() {
			fmt.Fprintf(&b, "- %s: %s\n", r.Name, r.Path)
		}
		b.WriteString("\n")
	}
	if in.Editor != nil {
		section(&b, "# "+in.IDE+" Visible Files", relPaths(ws, list(ctx, in.Editor.VisibleFiles)))
		section(&b, "# "+in.IDE+" Open Tabs", relPaths(ws, list(ctx, in.Editor.OpenTabs)))
	}
	if in.Terminals != nil {
		running, finished := in.Terminals.Snapshot()
		if len(running) > 0 {
			b.WriteString("# Actively Running Terminals\n")
			for _, t := range running {
				fmt.Fprintf(&b, "## Original command: `%s`\n", t.Command)
				if out := strings.TrimSpace(t.NewOutput); out != "" {
					fmt.Fprintf(&b, "### New Output\n%s\n", out)
				}
			}
			b.WriteString("\n")
		}
		if len(finished) > 0 {
			b.WriteString("# Inactive Terminals with Completed Process Output\n")
			for _, t := range finished {
				fmt.Fprintf(&b, "## Original command: `%s`\n", t.Command)
				if out := strings.TrimSpace(t.NewOutput); out != "" {
					fmt.Fprintf(&b, "### New Output\n%s\n", out)
				}
			}
			b.WriteString("\n")
		}
	}
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	fmt.Fprintf(&b, "# Current Time\n%s\n\n", FormatTime(now))
	if in.First && ws != nil {
		root := ws.Root()
		fmt.Fprintf(&b, "# Current Working Directory (%s) Files\n", root)
		entries, truncated, err := listfiles.List(ctx, ws, root, true, listfiles.DefaultLimit)
		switch {
		case err != nil:
			fmt.Fprintf(&b, "(The file list is not available: %v)\n", err)
		case len(entries) == 0:
			b.WriteString("No files found.\n")
		default:
			b.WriteString(listfiles.Format(entries, truncated) + "\n")
		}
		b.WriteString("\n")
	}
	window := in.ContextWindow
	if window <= 0 {
		window = 128_000
	}
	pct := 0
	if window > 0 {
		pct = int(in.ContextTokens * 100 / window)
	}
	fmt.Fprintf(&b, "# Context Window Usage\n%s / %dK tokens used (%d%%)\n\n", thousands(in.ContextTokens), window/1000, pct)
	b.WriteString("# Current Mode\n")
	if in.Mode == "plan" {
		b.WriteString("PLAN MODE\nIn this mode, gather information and discuss a plan with the user using plan_mode_respond. " +
			"Do not change files or run commands. When the plan is agreed, ask the user to switch to ACT MODE.\n")
	} else {
		b.WriteString("ACT MODE\n")
	}
	b.WriteString("</environment_details>")
	return b.String()
}

func list(ctx context.Context, fn func(context.Context) ([]string, error)) []string {
	paths, err := fn(ctx)
	if err != nil {
		return nil
	}
	return paths
}

func relPaths(ws *workspace.Workspace, paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		if ws != nil && filepath.IsAbs(p) {
			if ws.Ignored(p) {
				continue
			}
			p = ws.Rel(p)
		}
		out = append(out, p)
	}
	return out
}

func section(b *strings.Builder, title string, items []string) {
	b.WriteString(title + "\n")
	if len(items) == 0 {
		b.WriteString("(No " + strings.ToLower(strings.TrimPrefix(title[strings.LastIndex(title, " ")+1:], "#")) + ")\n\n")
		return
	}
	b.WriteString(strings.Join(items, "\n") + "\n\n")
}

// FormatTime renders local time with its IANA zone and UTC offset, e.g.
// "2026-11-22 14:05:09 (Asia/Kolkata, UTC+5:30)". Fractional offsets keep their minutes.
func FormatTime(t time.Time) string {
	_, off := t.Zone()
	sign := "+"
	if off < 0 {
		sign = "-"
		off = -off
	}
	h, m := off/3600, (off%3600)/60
	offset := fmt.Sprintf("UTC%s%d", sign, h)
	if m != 0 {
		offset = fmt.Sprintf("UTC%s%d:%02d", sign, h, m)
	}
	zone := t.Location().String()
	if zone == "Local" {
		zone, _ = t.Zone()
	}
	return fmt.Sprintf("%s (%s, %s)", t.Format("2006-01-02 15:04:05"), zone, offset)
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
