// Package delegate is the delegate tool (docs/modes.md, "The orchestrator"): it starts one
// subtask in a named mode, shows it in a chat row that follows its progress, waits for it and
// returns its result summary to the calling task. The subtask itself is built and run by a
// Runner, which core/agent implements on the task runtime's subagents (a tool cannot import
// core/task), so its requests and cost are charged to the caller and its limits stop it.
package delegate

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

// Name is the tool's name in the prompt.
const Name = toolnames.Delegate

var (
	//go:embed description.md
	textMD string
	text   = tools.Texts{MD: &textMD}
)

// Runner runs subtasks.
type Runner interface {
	// Run starts a subtask in mode with message as its assignment and returns when it has
	// ended or ctx is done (the subtask is then stopped before Run returns). update receives
	// the subtask's state each time it changes, one call at a time. env is the caller's: its
	// Account is charged with the subtask's requests and cost.
	Run(ctx context.Context, env *tools.Env, mode, message string, update func(msg.Subagent)) (Report, error)
}

// Report is how a subtask ended.
type Report struct {
	// Done is set when the subtask finished with attempt_completion; Text is then its
	// summary, otherwise why it stopped.
	Done bool
	Text string
}

// Modes a subtask cannot run in: PLAN only talks (a subtask cannot ask), and an orchestrator
// under an orchestrator would delegate without end.
var notHere = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"plan": true, "orchestrator": true}
}}

// Tool is delegate.
type Tool struct{ runner Runner }

// New returns delegate over r.
func New(r Runner) *Tool { return &Tool{runner: r} }

// Spec implements tools.Tool.
func (t *Tool) Spec() tools.Spec {
	return tools.Spec{
		Name:        Name,
		Description: text.Format("description"),
		Params: []tools.Param{
			{Name: "mode", Required: true, Description: text.Format("param-mode"), Usage: "Mode slug here"},
			{Name: "message", Required: true, Description: text.Format("param-message"), Usage: "The subtask's assignment"},
		},
		Category: tools.CategoryInteract,
		PlanSafe: false,
		ArgParam: "mode",
	}
}

// Run implements tools.Tool: it asks, then runs the subtask, showing it in one subagents row
// (tools.SubagentsRow),
// and returns its summary.
func (t *Tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	mode := strings.TrimSpace(call.Params["mode"])
	message := strings.TrimSpace(call.Params["message"])
	if mode == "" {
		return tools.MissingParam(Name, "mode"), nil
	}
	if message == "" {
		return tools.MissingParam(Name, "message"), nil
	}
	if notHere.Get()[mode] {
		return tools.Errorf("%s", text.Format("not-here", mode)), nil
	}
	if env.Modes == nil {
		return tools.Errorf("%s", text.Format("unknown", mode)), nil
	}
	name, ok := env.Modes.Name(mode)
	if !ok {
		return tools.Errorf("%s", text.Format("unknown", mode)), nil
	}
	ans, err := env.UI.Approve(ctx, tools.Approval{Ask: msg.AskTool, Category: tools.CategoryInteract, Inside: true,
		Text: message, Payload: &msg.Tool{Op: msg.OpDelegate, Path: mode, Content: message}})
	if err != nil {
		return tools.Result{}, fmt.Errorf("delegate: approval: %w", err)
	}
	if !ans.Approved {
		return tools.Result{Text: text.Format("denied"), Rejected: true, UserFeedback: ans.Text}, nil
	}
	r := tools.NewSubagentsRow(env.UI)
	r.Show(ctx, []msg.Subagent{{Prompt: message, Mode: mode, Status: msg.SubagentRunning}}, true)
	rep, err := t.runner.Run(ctx, env, mode, message, func(s msg.Subagent) { r.Show(ctx, []msg.Subagent{s}, true) })
	r.Finish(ctx)
	if err != nil {
		return tools.Result{}, fmt.Errorf("delegate: %w", err)
	}
	if !rep.Done {
		return tools.Result{Text: text.Format("failed", name, strings.TrimSpace(rep.Text)), IsError: true, UserFeedback: ans.Text}, nil
	}
	return tools.Result{Text: text.Format("done", name, strings.TrimSpace(rep.Text)), UserFeedback: ans.Text}, nil
}
