package toolcall

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/telemetry"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/interact"
)

// errToolPanic is the error of a tool call that panicked.
var errToolPanic = errors.New("tool crashed")

// Run validates, approves (through the tool's own UI calls) and executes one tool call, and
// returns the next user content. A non-zero End stops the loop. It runs the call through
// steps in order; the first step that ends the call gives the result.
func Run(ctx context.Context, d Deps, b parse.Block) ([]llm.Content, End) {
	c := &call{d: d, call: tools.Call{Name: b.Name, Params: b.Params}}
	rec := telemetry.Or(d.Recorder)
	ctx = rec.ToolStarted(ctx, b.Name, argument(rec, b.Params))
	for _, step := range steps {
		if step(c, ctx) {
			break
		}
	}
	rec.ToolEnded(ctx, outcome(c))
	return c.out, c.end
}

// call is one tool call on its way through Run's steps.
type call struct {
	d       Deps
	call    tools.Call
	tool    tools.Tool
	spec    tools.Spec
	header  string // `[name for 'arg'] Result:`
	started time.Time
	res     tools.Result
	// out and end are the call's result, set by the step that ends it.
	out []llm.Content
	end End
}

// stop ends the call with the next user content out and the loop's ending (0: go on).
func (c *call) stop(out []llm.Content, end End) bool {
	c.out, c.end = out, end
	return true
}

// step is one step of a tool call; it reports whether the call ended there.
type step func(c *call, ctx context.Context) bool

// steps are the steps of a tool call, in order. Approval is not a step of its own: the tool
// asks for it through its UI (UI.Approve) while it runs.
var steps = []step{
	(*call).focusChain, (*call).lookUp, (*call).validate, (*call).planMode,
	(*call).preHook, (*call).firstCheckpoint, (*call).beforeCompletion, (*call).execute, (*call).feedback,
	(*call).report, (*call).completed, (*call).condense, (*call).countMistakes,
	(*call).result,
}

// focusChain stores the todo list the call carries.
func (c *call) focusChain(_ context.Context) bool {
	if list, ok := c.call.Params[tools.TaskProgressParam]; ok {
		c.d.Todo.Set(list)
	}
	return false
}

// lookUp finds the tool; an unknown one is a mistake.
func (c *call) lookUp(ctx context.Context) bool {
	tool, ok := c.d.Registry.Get(c.call.Name)
	if !ok {
		return c.stop(mistake(ctx, c.d, c.call.Name, tools.Errorf("Unknown tool %q.", c.call.Name)), 0)
	}
	c.tool, c.spec = tool, tool.Spec()
	c.header = resultHeader(c.spec, c.call)
	return false
}

// validate refuses a call without a required parameter, as a mistake. Every refusal from
// here on undoes what the streaming preview may have opened (a mode switch while the call
// streamed, a missing parameter).
func (c *call) validate(ctx context.Context) bool {
	name := c.call.Name
	for _, p := range c.spec.Params {
		if v, ok := c.call.Params[p.Name]; p.Required && (!ok || strings.TrimSpace(v) == "" && p.Name != "content" && p.Name != "diff") {
			c.d.Registry.DiscardPreviews(ctx)
			c.d.Chat.Say(msg.SayError, "Cairn tried to use "+name+" without a value for the required parameter '"+p.Name+"'. Retrying…", nil, false)
			note := prompt.MissingParam(name, p.Name)
			if c.d.Task.Native() {
				note = prompt.MissingParamNative(name, p.Name)
			}
			return c.stop(mistake(ctx, c.d, c.header, tools.Result{Text: note, IsError: true}), 0)
		}
	}
	return false
}

// planMode refuses a call that may change things in PLAN mode.
func (c *call) planMode(ctx context.Context) bool {
	if !c.d.Task.Planning() || c.spec.PlanSafe {
		return false
	}
	c.d.Registry.DiscardPreviews(ctx)
	c.d.Chat.Say(msg.SayInfo, planRefusalRow(c.spec, c.call), nil, false)
	return c.stop(content(ctx, c.d, c.header, tools.Result{Text: prompt.PlanModeRefusal(c.call.Name), IsError: true}), 0)
}

// preHook runs the PreToolUse hooks. A hook that blocks the call keeps the tool from
// running: what its preview opened is undone, and the model reads the hook's message as the
// call's result.
func (c *call) preHook(ctx context.Context) bool {
	if blocked, text := c.d.Hooks.PreTool(ctx, c.call); blocked {
		c.d.Registry.DiscardPreviews(ctx)
		return c.stop(content(ctx, c.d, c.header, tools.Result{Text: text, IsError: true, Rejected: true}), 0)
	}
	if ctx.Err() != nil {
		return c.stop(nil, Cancelled)
	}
	return false
}

// firstCheckpoint waits for the run's first checkpoint before a call that may change
// files: the snapshot must precede any change it could undo. An MCP tool may run in PLAN
// mode and still write files (nothing says what a server's tool does), so it waits too.
func (c *call) firstCheckpoint(ctx context.Context) bool {
	if !c.spec.PlanSafe || c.spec.Category == tools.CategoryMCP {
		c.d.Checkpoints.AwaitFirst(ctx)
	}
	return false
}

// beforeCompletion stops the background commands when the model presents its result: the
// task is complete, so the chat (and cairn run, which ends at the result) says which commands
// were stopped, before the result row. Feedback on the result starts them afresh if needed.
func (c *call) beforeCompletion(ctx context.Context) bool {
	if c.call.Name == interact.CompletionName {
		c.d.Background.StopAll(ctx, Completed.StopWhy())
	}
	return false
}

// execute runs the tool (which asks for its approval); an error or a crash becomes a
// failed result.
func (c *call) execute(ctx context.Context) bool {
	if c.d.Sub != nil {
		c.d.Sub.NoteTool(c.spec, c.call)
	}
	c.started = c.d.Now()
	res, err := c.run(ctx)
	if ctx.Err() != nil {
		return c.stop(nil, Cancelled)
	}
	if err != nil {
		if !errors.Is(err, errToolPanic) { // a crash was reported already
			c.d.Chat.Say(msg.SayError, "Error running "+c.call.Name+": "+err.Error(), nil, false)
		}
		res = tools.Result{Text: err.Error(), IsError: true}
	}
	c.res = res
	return false
}

// run runs the tool; a panic in it becomes a failed call (reported as a bug) rather than a
// dead daemon.
func (c *call) run(ctx context.Context) (res tools.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.d.Bug(c.call.Name, r)
			res, err = tools.Result{}, fmt.Errorf("%w: %s failed with an internal error", errToolPanic, c.call.Name)
		}
	}()
	return c.tool.Run(ctx, Env(c.d), c.call)
}

// feedback shows the user's words given with the answer, and expands mentions in the
// answers of the tools that ask the user.
func (c *call) feedback(ctx context.Context) bool {
	if c.res.UserFeedback != "" {
		c.d.Chat.Say(msg.SayUserFeedback, c.res.UserFeedback, nil, false)
	}
	if c.spec.Category == tools.CategoryInteract && !c.res.IsError {
		c.res.Text = expandAnswers(ctx, c.d.Task.ExpandUser, c.res.Text)
	}
	return false
}

// report tells the agent which files the call read or changed, runs the PostToolUse
// hooks and takes a checkpoint after a call that may have changed files.
func (c *call) report(ctx context.Context) bool {
	if len(c.res.Read) > 0 || len(c.res.Changed) > 0 {
		c.d.Task.ToolRan(ctx, c.res.Read, c.res.Changed)
	}
	c.d.Hooks.PostTool(ctx, c.call, c.res, c.d.Now().Sub(c.started))
	if len(c.res.Changed) > 0 || c.spec.Category == tools.CategoryCommand {
		c.d.Checkpoints.Take(ctx)
	}
	return false
}

// completed ends the run when the call completed the task.
func (c *call) completed(_ context.Context) bool {
	if c.res.Completed {
		return c.stop(nil, Completed)
	}
	return false
}

// condense records a condensed summary as the start of the history the model sees.
func (c *call) condense(ctx context.Context) bool {
	if c.res.Condensed != "" {
		c.d.Task.Condensed(ctx, c.res.Condensed)
	}
	return false
}

// countMistakes counts a failed edit toward the mistake limit (three of one file in a
// row are one mistake, and the model is told) and ends the run of mistakes after a call that
// worked.
func (c *call) countMistakes(_ context.Context) bool {
	path := c.call.Params["path"]
	isEdit := c.spec.Category == tools.CategoryEdit
	switch {
	case c.res.IsError && isEdit && path != "" && !c.res.Rejected:
		if c.d.Guards.EditFailed(path) {
			c.res.Text += "\n\n" + prompt.EditFailedRepeatedly(path)
		}
	case !c.res.IsError:
		c.d.Guards.Succeeded(isEdit, path)
	}
	return false
}

// result ends the call with its result as the next user content; a failure is wrapped as
// a tool error.
func (c *call) result(ctx context.Context) bool {
	res := c.res
	if res.IsError && !res.Rejected {
		res = tools.Result{Text: prompt.ToolError(res.Text), Images: res.Images, UserFeedback: res.UserFeedback}
	}
	return c.stop(content(ctx, c.d, c.header, res), 0)
}

// planRefusalRow is the chat row of a call refused in PLAN mode.
func planRefusalRow(spec tools.Spec, call tools.Call) string {
	what := spec.Name
	if arg := strings.TrimSpace(call.Params[spec.ArgParam]); spec.ArgParam != "" && arg != "" {
		if len(arg) > 200 {
			arg = strings.ToValidUTF8(arg[:200], "") + "…"
		}
		what += " " + arg
	}
	return "Refused in PLAN mode: " + what + ". Nothing was changed; switch to ACT mode to let Cairn make changes."
}

// outcome names how a tool call ended, for telemetry.
func outcome(c *call) string {
	switch {
	case c.end == Cancelled:
		return "cancelled"
	case c.res.Rejected:
		return "rejected"
	case c.res.IsError:
		return "error"
	}
	return "ok"
}

// argument is the call's main argument (a command line, a path, a URL, an MCP tool) when
// the recorder wants content, else "".
func argument(rec telemetry.Recorder, params map[string]string) string {
	if !rec.Content() {
		return ""
	}
	for _, k := range []string{"command", "path", "url", "tool_name", "uri"} {
		if v := params[k]; v != "" {
			return v
		}
	}
	return ""
}
