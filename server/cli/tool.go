package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/cairnhq/cairn/core/agent"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/host/direct"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/shell"
	"github.com/cairnhq/cairn/core/workspace"
)

// tool parses stdin as a streamed model message and runs its first tool call in DIR with the
// direct host, printing the result exactly as the model would receive it.
func tool(ctx context.Context, args []string, stdio IO) int {
	fs := newFlags("tool", stdio)
	dir := fs.String("C", ".", "workspace directory")
	yes := fs.Bool("yes", false, "approve everything (edits are saved)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	in, err := io.ReadAll(stdio.In)
	if err != nil {
		stdio.errf("cairn tool: %v\n", err)
		return exitFailure
	}
	var call *parse.Block
	for _, b := range parse.Parse(parse.DefaultGrammar(), string(in)) {
		if b.Type == parse.ToolUse {
			call = &b
			break
		}
	}
	if call == nil {
		stdio.errf("cairn tool: no tool call found in the message\n")
		return exitUsage
	}
	root, err := filepath.Abs(*dir)
	if err != nil {
		stdio.errf("cairn tool: %v\n", err)
		return exitUsage
	}
	ws, err := workspace.New(root)
	if err != nil {
		stdio.errf("cairn tool: %v\n", err)
		return exitUsage
	}
	reg := agent.Tools(shell.NewRegistry())
	t, ok := reg.Get(call.Name)
	if !ok {
		stdio.errf("cairn tool: %s cannot run outside a task\n", call.Name)
		return exitUsage
	}
	c := tools.Call{Name: call.Name, Params: call.Params, Partial: call.Partial}
	if call.Partial {
		stdio.errf("cairn tool: the tool call is incomplete (no closing tag)\n")
		return exitUsage
	}
	s := config.Default()
	env := &tools.Env{Files: ws, Host: direct.New("", []string{root}), UI: &cliUI{yes: *yes, stdio: stdio}, Mode: task.ModeAct,
		Settings: tools.Settings{OutputLineLimit: s.OutputLineLimit, ReadFileLineLimit: s.ReadFileLineLimit}}
	spec := t.Spec()
	for _, p := range spec.Params {
		if v, ok := c.Params[p.Name]; p.Required && (!ok || v == "" && p.Name != "content") {
			stdio.emit(task.ResultText(spec, c, tools.Result{IsError: true, Text: "Missing value for required parameter '" + p.Name + "'."}) + "\n")
			return exitFailure
		}
	}
	res, err := t.Run(ctx, env, c)
	if err != nil {
		res = tools.Result{IsError: true, Text: err.Error()}
	}
	if code := stdio.emit(task.ResultText(spec, c, res) + "\n"); code != exitOK {
		return code
	}
	if res.IsError || res.Rejected {
		return exitFailure
	}
	return exitOK
}

// cliUI approves everything with --yes and nothing without; questions cannot be answered.
type cliUI struct {
	yes   bool
	stdio IO
}

func (u *cliUI) Approve(context.Context, tools.Approval) (tools.Answer, error) {
	if !u.yes {
		u.stdio.errf("cairn tool: not approved (use --yes)\n")
	}
	return tools.Answer{Approved: u.yes}, nil
}

func (u *cliUI) Ask(_ context.Context, kind msg.Kind, text string, _ msg.Payload) (tools.Answer, error) {
	if kind == msg.AskCompletionResult {
		return tools.Answer{Approved: true}, nil
	}
	return tools.Answer{}, fmt.Errorf("cairn tool: %s needs a user (%s)", kind, text)
}

func (u *cliUI) Say(_ context.Context, kind msg.Kind, text string, _ msg.Payload, partial bool) {
	if !partial && (kind == msg.SayError || kind == msg.SayIgnoreError || kind == msg.SayDiffError) {
		u.stdio.errf("%s: %s\n", kind, text)
	}
}
