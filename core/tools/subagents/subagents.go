// Package subagents is the use_subagents tool: it starts up to MaxChildren read-only child
// tasks at once, each with its own prompt and context window, shows them in one chat row
// that follows their progress, and returns their final reports to the parent as its result.
// The children themselves are built and run by a Runner, which core/agent implements (a tool
// cannot import core/task).
package subagents

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

// Name is the tool's name in the prompt.
const Name = toolnames.UseSubagents

// MaxChildren is how many subagents one call may start.
const MaxChildren = 4

// Model-facing texts (docs/conventions.md, "Comments and model-facing text").
var (
	//go:embed description.md
	description string
	//go:embed messages.md
	messagesText string
	messages     = tools.Texts{MD: &messagesText}
)

// Runner runs subagents.
type Runner interface {
	// Run starts one read-only child per prompt, all at once, and returns when every child
	// has ended or ctx is done (the children are then stopped before Run returns). It
	// returns one Report per prompt, in order. update receives every child's state each time
	// one changes; Run makes the calls one at a time, from any goroutine. env is the
	// parent's: its Account is charged with the children's requests and cost.
	Run(ctx context.Context, env *tools.Env, prompts []string, update func([]msg.Subagent)) ([]Report, error)
}

// Report is how one child ended.
type Report struct {
	// Done is set when the child reported; Text is then its report, otherwise why it failed.
	Done bool
	Text string
}

// Tool is use_subagents.
type Tool struct{ runner Runner }

// New returns use_subagents over r.
func New(r Runner) *Tool { return &Tool{runner: r} }

// paramName is the name of the i-th prompt parameter (1-based).
func paramName(i int) string { return "prompt_" + strconv.Itoa(i) }

// Spec implements tools.Tool.
func (t *Tool) Spec() tools.Spec {
	params := []tools.Param{{Name: paramName(1), Required: true, Description: messages.Format("param-prompt-1"),
		Usage: "Instructions for the first subagent"}}
	for i := 2; i <= MaxChildren; i++ {
		params = append(params, tools.Param{Name: paramName(i), Description: messages.Format("param-prompt-n"),
			Usage: fmt.Sprintf("Instructions for subagent %d (optional)", i)})
	}
	return tools.Spec{
		Name:        Name,
		Description: strings.TrimSpace(description),
		Params:      params,
		Category:    tools.CategoryRead,
		PlanSafe:    true,
	}
}

// ChildPrompt is the first message a child receives: what a subagent is and may do, then
// its assignment.
func ChildPrompt(assignment string) string {
	return messages.Format("child-brief") + "\n" + strings.TrimSpace(assignment)
}

// Prompts returns a call's prompts in parameter order, blank ones left out.
func Prompts(call tools.Call) []string {
	var out []string
	for i := 1; i <= MaxChildren; i++ {
		if p := strings.TrimSpace(call.Params[paramName(i)]); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Run implements tools.Tool: it asks (read approval: the children only read), then runs the
// children, showing them in one subagents row, and returns their reports.
func (t *Tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	prompts := Prompts(call)
	if len(prompts) == 0 {
		return tools.MissingParam(Name, paramName(1)), nil
	}
	ans, err := env.UI.Approve(ctx, tools.Approval{Ask: msg.AskTool, Category: tools.CategoryRead, Inside: true,
		Text: strings.Join(prompts, "\n\n"), Payload: &msg.Tool{Op: msg.OpUseSubagents, Content: listPrompts(prompts)}})
	if err != nil {
		return tools.Result{}, fmt.Errorf("use_subagents: approval: %w", err)
	}
	if !ans.Approved {
		return tools.Result{Text: messages.Format("denied"), Rejected: true, UserFeedback: ans.Text}, nil
	}
	row := tools.NewSubagentsRow(env.UI)
	initial := make([]msg.Subagent, len(prompts))
	for i, p := range prompts {
		initial[i] = msg.Subagent{Prompt: p, Status: msg.SubagentRunning}
	}
	row.Show(ctx, initial, true)
	reports, err := t.runner.Run(ctx, env, prompts, func(s []msg.Subagent) { row.Show(ctx, s, true) })
	row.Finish(ctx)
	if err != nil {
		return tools.Result{}, fmt.Errorf("use_subagents: %w", err)
	}
	return tools.Result{Text: resultText(reports), UserFeedback: ans.Text}, nil
}

// listPrompts is the approval row's content: the prompts, numbered.
func listPrompts(prompts []string) string {
	var b strings.Builder
	for i, p := range prompts {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "%d. %s", i+1, p)
	}
	return b.String()
}

// resultText is what the parent model receives: every report, in order.
func resultText(reports []Report) string {
	parts := []string{messages.Format("header", len(reports))}
	for i, r := range reports {
		if r.Done {
			parts = append(parts, messages.Format("done", i+1, strings.TrimSpace(r.Text)))
		} else {
			parts = append(parts, messages.Format("failed", i+1, strings.TrimSpace(r.Text)))
		}
	}
	return strings.Join(parts, "\n\n")
}
