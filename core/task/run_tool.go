package task

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/hooks"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/task/guards"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/interact"
)

// errToolPanic is the error of a tool call that panicked.
var errToolPanic = errors.New("tool crashed")

// runTool validates, approves (through the tool's own UI calls) and executes one tool call, and
// returns the next user content. A non-zero ending stops the loop. It runs the call through
// toolSteps in order; the first step that ends the call gives the result.
func (t *Task) runTool(ctx context.Context, b parse.Block) ([]llm.Content, ending) {
	c := &toolCall{t: t, call: tools.Call{Name: b.Name, Params: b.Params}}
	for _, step := range toolSteps {
		if step(c, ctx) {
			break
		}
	}
	return c.out, c.end
}

// toolCall is one tool call on its way through runTool's steps.
type toolCall struct {
	t       *Task
	call    tools.Call
	tool    tools.Tool
	spec    tools.Spec
	header  string // `[name for 'arg'] Result:`
	started time.Time
	res     tools.Result
	// out and end are the call's result, set by the step that ends it.
	out []llm.Content
	end ending
}

// stop ends the call with the next user content out and the loop's ending (0: go on).
func (c *toolCall) stop(out []llm.Content, end ending) bool {
	c.out, c.end = out, end
	return true
}

// toolStep is one step of a tool call; it reports whether the call ended there.
type toolStep func(c *toolCall, ctx context.Context) bool

// toolSteps are the steps of a tool call, in order. Approval is not a step of its own: the
// tool asks for it through its UI (taskUI.Approve) while it runs.
var toolSteps = []toolStep{
	(*toolCall).focusChain, (*toolCall).lookUp, (*toolCall).validate, (*toolCall).planMode,
	(*toolCall).preHook, (*toolCall).firstCheckpoint, (*toolCall).beforeCompletion, (*toolCall).execute, (*toolCall).feedback,
	(*toolCall).report, (*toolCall).completed, (*toolCall).condense, (*toolCall).countMistakes,
	(*toolCall).result,
}

// focusChain stores the todo list the call carries.
func (c *toolCall) focusChain(_ context.Context) bool {
	t := c.t
	if list, ok := c.call.Params[tools.TaskProgressParam]; ok {
		t.todo.Set(list)
	}
	return false
}

// lookUp finds the tool; an unknown one is a mistake.
func (c *toolCall) lookUp(ctx context.Context) bool {
	t := c.t
	tool, ok := t.deps.Registry.Get(c.call.Name)
	if !ok {
		return c.stop(t.mistake(ctx, c.call.Name, tools.Errorf("Unknown tool %q.", c.call.Name)), 0)
	}
	c.tool, c.spec = tool, tool.Spec()
	c.header = resultHeader(c.spec, c.call)
	return false
}

// validate refuses a call without a required parameter, as a mistake. Every refusal from
// here on undoes what the streaming preview may have opened (a mode switch while the call
// streamed, a missing parameter).
func (c *toolCall) validate(ctx context.Context) bool {
	t := c.t
	name := c.call.Name
	for _, p := range c.spec.Params {
		if v, ok := c.call.Params[p.Name]; p.Required && (!ok || strings.TrimSpace(v) == "" && p.Name != "content" && p.Name != "diff") {
			t.deps.Registry.DiscardPreviews(ctx)
			t.conv.Say(msg.SayError, "Cairn tried to use "+name+" without a value for the required parameter '"+p.Name+"'. Retrying…", nil, false)
			note := prompt.MissingParam(name, p.Name)
			if t.cfg.For(t.Mode() == ModePlan).Info.NativeTools() {
				note = prompt.MissingParamNative(name, p.Name)
			}
			return c.stop(t.mistake(ctx, c.header, tools.Result{Text: note, IsError: true}), 0)
		}
	}
	return false
}

// planMode refuses a call that may change things in PLAN mode.
func (c *toolCall) planMode(ctx context.Context) bool {
	t := c.t
	if t.Mode() != ModePlan || c.spec.PlanSafe {
		return false
	}
	t.deps.Registry.DiscardPreviews(ctx)
	t.conv.Say(msg.SayInfo, planRefusalRow(c.spec, c.call), nil, false)
	return c.stop(t.toolContent(ctx, c.header, tools.Result{Text: prompt.PlanModeRefusal(c.call.Name), IsError: true}), 0)
}

// preHook runs the PreToolUse hooks. A hook that blocks the call keeps the tool from
// running: what its preview opened is undone, and the model reads the hook's message as the
// call's result.
func (c *toolCall) preHook(ctx context.Context) bool {
	t := c.t
	if blocked, text := t.hooks.PreTool(ctx, c.call); blocked {
		t.deps.Registry.DiscardPreviews(ctx)
		return c.stop(t.toolContent(ctx, c.header, tools.Result{Text: text, IsError: true, Rejected: true}), 0)
	}
	if ctx.Err() != nil {
		return c.stop(nil, endCancelled)
	}
	return false
}

// firstCheckpoint waits for the run's first checkpoint before a call that may change
// files: the snapshot must precede any change it could undo.
func (c *toolCall) firstCheckpoint(ctx context.Context) bool {
	t := c.t
	if !c.spec.PlanSafe {
		t.cps.AwaitFirst(ctx)
	}
	return false
}

// execute runs the tool (which asks for its approval); an error or a crash becomes a
// failed result.
func (c *toolCall) execute(ctx context.Context) bool {
	t := c.t
	if t.sub != nil {
		t.sub.NoteTool(c.spec, c.call)
	}
	c.started = t.deps.Now()
	res, err := t.runGuarded(ctx, c.tool, c.call)
	if ctx.Err() != nil {
		return c.stop(nil, endCancelled)
	}
	if err != nil {
		if !errors.Is(err, errToolPanic) { // a crash was reported already
			t.conv.Say(msg.SayError, "Error running "+c.call.Name+": "+err.Error(), nil, false)
		}
		res = tools.Result{Text: err.Error(), IsError: true}
	}
	c.res = res
	return false
}

// feedback shows the user's words given with the answer, and expands mentions in the
// answers of the tools that ask the user.
func (c *toolCall) feedback(ctx context.Context) bool {
	t := c.t
	if c.res.UserFeedback != "" {
		t.conv.Say(msg.SayUserFeedback, c.res.UserFeedback, nil, false)
	}
	if c.spec.Category == tools.CategoryInteract && !c.res.IsError {
		c.res.Text = t.expandAnswers(ctx, c.res.Text)
	}
	return false
}

// report tells the agent which files the call read or changed, runs the PostToolUse
// hooks and takes a checkpoint after a call that may have changed files.
func (c *toolCall) report(ctx context.Context) bool {
	t := c.t
	if len(c.res.Read) > 0 || len(c.res.Changed) > 0 {
		t.deps.Turns.ToolRan(ctx, c.res.Read, c.res.Changed)
	}
	t.hooks.PostTool(ctx, c.call, c.res, t.deps.Now().Sub(c.started))
	if len(c.res.Changed) > 0 || c.spec.Category == tools.CategoryCommand {
		t.cps.Take(ctx)
	}
	return false
}

// completed ends the run when the call completed the task.
func (c *toolCall) completed(_ context.Context) bool {
	if c.res.Completed {
		return c.stop(nil, endCompleted)
	}
	return false
}

// condense records a condensed summary as the start of the history the model sees.
func (c *toolCall) condense(ctx context.Context) bool {
	t := c.t
	if c.res.Condensed == "" {
		return false
	}
	t.hooks.Compact(ctx, hooks.CompactCondense, t.conv.Meta().ContextTokens, len(t.conv.History()))
	t.conv.MarkCondensed(c.res.Condensed)
	return false
}

// countMistakes counts a failed edit toward the mistake limit (three of one file in a
// row are one mistake, and the model is told) and ends the run of mistakes after a call that
// worked.
func (c *toolCall) countMistakes(_ context.Context) bool {
	t := c.t
	path := c.call.Params["path"]
	isEdit := c.spec.Category == tools.CategoryEdit
	switch {
	case c.res.IsError && isEdit && path != "" && !c.res.Rejected:
		if t.guards.EditFailed(path) {
			c.res.Text += "\n\n" + prompt.EditFailedRepeatedly(path)
		}
	case !c.res.IsError:
		t.guards.Succeeded(isEdit, path)
	}
	return false
}

// result ends the call with its result as the next user content; a failure is wrapped as
// a tool error.
func (c *toolCall) result(ctx context.Context) bool {
	t := c.t
	res := c.res
	if res.IsError && !res.Rejected {
		res = tools.Result{Text: prompt.ToolError(res.Text), Images: res.Images, UserFeedback: res.UserFeedback}
	}
	return c.stop(t.toolContent(ctx, c.header, res), 0)
}

// runGuarded runs a tool; a panic in it becomes a failed call (reported as a bug) rather than
// a dead daemon.
func (t *Task) runGuarded(ctx context.Context, tool tools.Tool, call tools.Call) (res tools.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			t.reportBug(call.Name, r)
			res, err = tools.Result{}, fmt.Errorf("%w: %s failed with an internal error", errToolPanic, call.Name)
		}
	}()
	return tool.Run(ctx, t.env(), call)
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

// mistake records a model mistake and returns the feedback content.
func (t *Task) mistake(ctx context.Context, header string, res tools.Result) []llm.Content {
	t.guards.Mistake() // counted once, as a mistake, not also as a repetition
	if header == "" {
		header = "[unknown tool] Result:"
	} else if !strings.HasPrefix(header, "[") {
		header = "[" + header + "] Result:"
	}
	return t.toolContent(ctx, header, tools.Result{Text: prompt.ToolError(res.Text)})
}

// toolContent builds the next user turn from a result: the `[tool for 'arg'] Result:` header,
// the text, images, and the user's feedback, whose mentions are expanded within ctx (an @url
// in it is fetched, and stops with the task).
func (t *Task) toolContent(ctx context.Context, header string, res tools.Result) []llm.Content {
	text := res.Text
	if res.Rejected && strings.TrimSpace(text) == "" {
		text = prompt.ToolDenied()
	}
	content := []llm.Content{llm.Text(header + "\n" + text)}
	for _, img := range res.Images {
		content = append(content, llm.Content{Type: llm.ContentImage, ImageMediaType: img.MediaType,
			ImageData: encodeBase64(img.Data)})
	}
	if res.UserFeedback != "" {
		content = append(content, llm.Text(feedbackOpen+t.deps.Turns.ExpandUser(ctx, res.UserFeedback)+"\n</feedback>"))
	}
	return content
}

// ResultText is the text the model receives for a tool result (without images): the header,
// the result or the wrapped error, and the user's feedback. `cairn tool` prints exactly this.
func ResultText(spec tools.Spec, call tools.Call, res tools.Result) string {
	text := res.Text
	switch {
	case res.Rejected && strings.TrimSpace(text) == "":
		text = prompt.ToolDenied()
	case res.IsError && !res.Rejected:
		text = prompt.ToolError(text)
	}
	out := resultHeader(spec, call) + "\n" + text
	if res.UserFeedback != "" {
		out += "\n<feedback>\n" + res.UserFeedback + "\n</feedback>"
	}
	return out
}

// resultHeader is `[name for 'arg'] Result:` (or `[name] Result:` for tools without an argument).
func resultHeader(spec tools.Spec, call tools.Call) string {
	if spec.ArgParam == "" {
		return "[" + spec.Name + "] Result:"
	}
	return "[" + spec.Name + " for '" + call.Params[spec.ArgParam] + "'] Result:"
}

// beforeCompletion stops the background commands when the model presents its result: the
// task is complete, so the chat (and cairn run, which ends at the result) says which commands
// were stopped, before the result row. Feedback on the result starts them afresh if needed.
func (c *toolCall) beforeCompletion(ctx context.Context) bool {
	if c.call.Name == interact.CompletionName {
		c.t.bg.StopAll(ctx, endCompleted.stopWhy())
	}
	return false
}

//go:embed repeated.md
var repeatedNote string

// stopRepeating handles a call made a third time in a row: it is not run, the task asks the
// user, and continuing starts the count over and passes the user's words to the model.
func (t *Task) stopRepeating(ctx context.Context, b parse.Block) ([]llm.Content, ending) {
	t.deps.Registry.DiscardPreviews(ctx)
	what := b.Name
	if tool, ok := t.deps.Registry.Get(b.Name); ok {
		spec := tool.Spec()
		if arg := strings.TrimSpace(b.Params[spec.ArgParam]); spec.ArgParam != "" && arg != "" {
			if len(arg) > 120 {
				arg = strings.ToValidUTF8(arg[:120], "") + "…"
			}
			what += " " + arg
		}
	}
	ans, err := t.ask(ctx, msg.AskRepeatedToolCall, fmt.Sprintf("Cairn is repeating itself: it made the same call (%s) %d times in a row. "+
		"The last one was not run. Continue with guidance, or stop the task.", what, guards.RepeatLimit), nil)
	if err != nil {
		return nil, endCancelled
	}
	if !ans.Approved && ans.Text == "" {
		return nil, endFailed
	}
	t.guards.ForgetRepeats()
	header := "[" + b.Name + "] Result:"
	if tool, ok := t.deps.Registry.Get(b.Name); ok {
		header = resultHeader(tool.Spec(), tools.Call{Name: b.Name, Params: b.Params})
	}
	res := tools.Result{Text: strings.TrimSpace(repeatedNote), UserFeedback: ans.Text}
	if ans.Text != "" {
		t.conv.Say(msg.SayUserFeedback, ans.Text, nil, false)
	}
	return t.toolContent(ctx, header, res), 0
}
