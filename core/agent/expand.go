package agent

import (
	"context"
	"strings"

	"github.com/cairnhq/cairn/core/mentions"
	"github.com/cairnhq/cairn/core/rules"
	"github.com/cairnhq/cairn/core/slash"
	"github.com/cairnhq/cairn/core/tools/shell"
)

// Expansion is user text after slash commands and mentions were expanded (docs/prompt.md,
// "Mentions, slash commands and rules").
type Expansion struct {
	Text string
	// Slash is the command the text started with, nil when none.
	Slash    *slash.Command
	Mentions []mentions.Mention
}

// ExpandUser expands the mentions of user text, then a slash command at its start. Mentions
// go first so that a workflow's own text is never read for mentions. Problems gathering
// content are reported inside the expanded text; a cancelled ctx leaves what was gathered.
func ExpandUser(ctx context.Context, d mentions.Deps, workflows []rules.Workflow, text string) Expansion {
	out, ms, _ := mentions.Expand(ctx, d, text)
	e := Expansion{Text: out, Mentions: ms}
	if s, cmd, ok := slash.Expand(out, workflows); ok {
		e.Text, e.Slash = s, &cmd
	}
	return e
}

// registryTerminal adapts the task's command registry to @terminal. The registry hands each
// byte of output out once, so what @terminal shows is not repeated in environment details.
func registryTerminal(r *shell.Registry) mentions.Terminal {
	return mentions.TerminalFunc(func(context.Context) (string, error) {
		running, finished := r.Snapshot()
		var b strings.Builder
		for _, st := range append(finished, running...) {
			if strings.TrimSpace(st.NewOutput) == "" {
				continue
			}
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString("$ " + st.Command + "\n" + strings.TrimRight(st.NewOutput, "\n") + "\n")
		}
		return b.String(), nil
	})
}
