package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"

	"github.com/cairnhq/cairn/core/agent"

	"github.com/cairnhq/cairn/core/mentions"
	"github.com/cairnhq/cairn/core/rules"
	"github.com/cairnhq/cairn/core/workspace"
)

// mentionsOutput is what `cairn debug mentions` prints (docs/cli.md, "cairn debug").
type mentionsOutput struct {
	Mentions []string `json:"mentions"`
	Slash    *string  `json:"slash"`
	Expanded string   `json:"expanded"`
}

// debugMentions reads user text on stdin and prints its mentions, its slash command and the
// text as the model would get it, expanded against DIR with the direct host: no editor (so no
// diagnostics) and no terminal.
func debugMentions(ctx context.Context, args []string, stdio IO) int {
	fs := newFlags("debug mentions", stdio)
	dirs := dirFlags(fs, false, "workspace directory")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	root, err := filepath.Abs(*dirs.one())
	if err != nil {
		stdio.errf("cairn debug mentions: %v\n", err)
		return exitUsage
	}
	ws, err := workspace.New(root)
	if err != nil {
		stdio.errf("cairn debug mentions: %v\n", err)
		return exitUsage
	}
	in, err := io.ReadAll(stdio.In)
	if err != nil {
		stdio.errf("cairn debug mentions: %v\n", err)
		return exitFailure
	}
	// Workflow toggles come from the config file; an unreadable one leaves every workflow on.
	s, _ := (&settingsFlags{}).settings()
	wfs, _ := rules.Workflows(ws.Root(), agent.DefaultConfig("", nil).GlobalWorkflowsDir, s.RuleToggles)
	e := agent.ExpandUser(ctx, mentions.Deps{Files: ws}, wfs, string(in))
	out := mentionsOutput{Mentions: []string{}, Expanded: e.Text}
	for _, m := range e.Mentions {
		out.Mentions = append(out.Mentions, m.Token)
	}
	if e.Slash != nil {
		out.Slash = &e.Slash.Name
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		stdio.errf("cairn debug mentions: %v\n", err)
		return exitFailure
	}
	return stdio.emit(buf.String())
}
