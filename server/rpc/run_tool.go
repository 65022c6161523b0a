package rpc

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/agent"
	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/host/direct"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/search"
	"github.com/cairnhq/cairn/core/tools/shell"
	"github.com/cairnhq/cairn/core/workspace"
)

// ErrToolUsage marks a tool call that cannot run at all: no call in the message, an
// incomplete one, a tool that needs a task, or a folder that is not a workspace.
var ErrToolUsage = errors.New("cannot run the tool call")

// ToolOutcome is what running one tool call gave.
type ToolOutcome struct {
	Result string   // the result exactly as the model would receive it
	Failed bool     // an error result or a denied call
	Notes  []string // refusals and errors shown to the user, one line each
}

// RunToolCall runs the first tool call of a model message in the workspace folder root with
// the machine's own host, approving it when yes is set: what `cairn tool` does, in the CLI
// process or (with --connect) in the daemon, where search_files finds the warm index idx
// (nil: searches scan).
func RunToolCall(ctx context.Context, root, message string, yes bool, idx *search.Indexes) (ToolOutcome, error) {
	var call *parse.Block
	for _, b := range parse.Parse(parse.DefaultGrammar(), message) {
		if b.Type == parse.ToolUse {
			call = &b
			break
		}
	}
	if call == nil {
		return ToolOutcome{}, fmt.Errorf("%w: no tool call found in the message", ErrToolUsage)
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return ToolOutcome{}, fmt.Errorf("%w: %w", ErrToolUsage, err)
	}
	ws, err := workspace.New(root)
	if err != nil {
		return ToolOutcome{}, fmt.Errorf("%w: %w", ErrToolUsage, err)
	}
	reg := agent.Tools(shell.NewRegistry(), nil, idx)
	t, ok := reg.Get(call.Name)
	if !ok {
		return ToolOutcome{}, fmt.Errorf("%w: %s cannot run outside a task", ErrToolUsage, call.Name)
	}
	if call.Partial {
		return ToolOutcome{}, fmt.Errorf("%w: the tool call is incomplete (no closing tag)", ErrToolUsage)
	}
	c := tools.Call{Name: call.Name, Params: call.Params}
	s := config.Default()
	ui := &toolUI{yes: yes}
	env := &tools.Env{Files: ws, Host: direct.New("", []string{root}), UI: ui, Mode: task.ModeAct,
		Settings: tools.Settings{OutputLineLimit: s.OutputLineLimit, ReadFileLineLimit: s.ReadFileLineLimit}}
	spec := t.Spec()
	for _, p := range spec.Params {
		if v, ok := c.Params[p.Name]; p.Required && (!ok || v == "" && p.Name != "content") {
			return ToolOutcome{Result: task.ResultText(spec, c, tools.Result{IsError: true, Text: "Missing value for required parameter '" + p.Name + "'."}), Failed: true}, nil
		}
	}
	res, err := t.Run(ctx, env, c)
	if err != nil {
		res = tools.Result{IsError: true, Text: err.Error()}
	}
	return ToolOutcome{Result: task.ResultText(spec, c, res), Failed: res.IsError || res.Rejected, Notes: ui.notes}, nil
}

// toolUI approves everything with yes and nothing without; questions cannot be answered.
type toolUI struct {
	yes   bool
	notes []string
}

func (u *toolUI) Approve(context.Context, tools.Approval) (tools.Answer, error) {
	if !u.yes {
		u.notes = append(u.notes, "cairn tool: not approved (use --yes)")
	}
	return tools.Answer{Approved: u.yes}, nil
}

func (u *toolUI) Ask(_ context.Context, kind msg.Kind, text string, _ msg.Payload) (tools.Answer, error) {
	if kind == msg.AskCompletionResult {
		return tools.Answer{Approved: true}, nil
	}
	return tools.Answer{}, fmt.Errorf("cairn tool: %s needs a user (%s)", kind, text)
}

func (u *toolUI) Say(_ context.Context, kind msg.Kind, text string, _ msg.Payload, partial bool) {
	if !partial && (kind == msg.SayError || kind == msg.SayIgnoreError || kind == msg.SayDiffError) {
		u.notes = append(u.notes, fmt.Sprintf("%s: %s", kind, text))
	}
}

// RunTool runs one tool call in a workspace for `cairn tool --connect`.
func (s *Services) RunTool(ctx context.Context, req *cairnv1.RunToolRequest) (*cairnv1.RunToolResponse, error) {
	if req.GetWorkspaceRoot() == "" {
		return nil, status.Error(codes.InvalidArgument, "workspace_root is required")
	}
	out, err := RunToolCall(ctx, req.GetWorkspaceRoot(), req.GetMessage(), req.GetYes(), s.b.SearchIndexes)
	if errors.Is(err, ErrToolUsage) {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.RunToolResponse{Result: out.Result, Failed: out.Failed, Notes: out.Notes}, nil
}
