package task

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/tools"
)

// errToolPanic is the error of a tool call that panicked.
var errToolPanic = errors.New("tool crashed")

// runTool validates, approves (through the tool's own UI calls) and executes one tool call, and
// returns the next user content. A non-zero ending stops the loop.
func (t *Task) runTool(ctx context.Context, b parse.Block) ([]llm.Content, ending) {
	call := tools.Call{Name: b.Name, Params: b.Params}
	if list, ok := b.Params[tools.TaskProgressParam]; ok && strings.TrimSpace(list) != "" {
		t.setFocusChain(list)
	}
	tool, ok := t.deps.Registry.Get(b.Name)
	if !ok {
		return t.mistake(b.Name, "", tools.Errorf("Unknown tool %q.", b.Name)), 0
	}
	// Every refusal below undoes what the streaming preview may have opened (a mode switch
	// while the call streamed, a missing parameter).
	spec := tool.Spec()
	header := resultHeader(spec, call)
	for _, p := range spec.Params {
		if v, ok := call.Params[p.Name]; p.Required && (!ok || strings.TrimSpace(v) == "" && p.Name != "content" && p.Name != "diff") {
			t.discardPreviews(ctx)
			t.say(msg.SayError, "Cairn tried to use "+b.Name+" without a value for the required parameter '"+p.Name+"'. Retrying…", nil, false)
			note := prompt.MissingParam(b.Name, p.Name)
			if t.deps.ModelInfo.NativeTools() {
				note = prompt.MissingParamNative(b.Name, p.Name)
			}
			return t.mistake(header, "", tools.Result{Text: note, IsError: true}), 0
		}
	}
	if t.Mode() == ModePlan && !spec.PlanSafe {
		t.discardPreviews(ctx)
		t.say(msg.SayInfo, planRefusalRow(spec, call), nil, false)
		return t.toolContent(header, tools.Result{Text: prompt.PlanModeRefusal(b.Name), IsError: true}), 0
	}

	if blocked, text := t.preToolHook(ctx, call); blocked {
		// The tool never runs: what its preview opened is undone, and the model reads the
		// hook's message as the call's result.
		t.discardPreviews(ctx)
		return t.toolContent(header, tools.Result{Text: text, IsError: true, Rejected: true}), 0
	}
	if ctx.Err() != nil {
		return nil, endCancelled
	}
	if !spec.PlanSafe {
		t.awaitFirstCheckpoint(ctx) // the snapshot must precede any change it could undo
	}
	t.noteTool(spec, call)
	started := t.deps.Now()
	res, err := t.runGuarded(ctx, tool, call)
	if ctx.Err() != nil {
		return nil, endCancelled
	}
	if err != nil {
		if !errors.Is(err, errToolPanic) { // a crash was reported already
			t.say(msg.SayError, "Error running "+b.Name+": "+err.Error(), nil, false)
		}
		res = tools.Result{Text: err.Error(), IsError: true}
	}
	if res.UserFeedback != "" {
		t.say(msg.SayUserFeedback, res.UserFeedback, nil, false)
	}
	if spec.Category == tools.CategoryInteract && !res.IsError {
		res.Text = t.expandAnswers(ctx, res.Text)
	}
	if len(res.Read) > 0 || len(res.Changed) > 0 {
		t.deps.Turns.ToolRan(ctx, res.Read, res.Changed)
	}
	t.postToolHook(ctx, call, res, t.deps.Now().Sub(started))
	if len(res.Changed) > 0 || spec.Category == tools.CategoryCommand {
		t.checkpoint(ctx)
	}
	if res.Completed {
		return nil, endCompleted
	}
	if res.Condensed != "" {
		t.mu.Lock()
		tokens, n := t.conv.meta.ContextTokens, len(t.conv.api)
		t.mu.Unlock()
		t.compactHook(ctx, "condense", tokens, n)
		t.markCondensed(res.Condensed)
	}

	path := call.Params["path"]
	isEdit := spec.Category == tools.CategoryEdit
	t.mu.Lock()
	switch {
	case res.IsError && isEdit && path != "" && !res.Rejected:
		// Failed edits of one file are the mistake limit's (below): not also a repetition.
		t.guards.repeat = repeatState{}
		t.guards.editFailures[path]++
		if t.guards.editFailures[path] >= 3 {
			t.guards.mistakes++
			t.guards.editFailures[path] = 0
			res.Text += "\n\n" + prompt.EditFailedRepeatedly(path)
		}
	case !res.IsError:
		if isEdit {
			delete(t.guards.editFailures, path)
		}
		t.guards.mistakes = 0
	}
	t.mu.Unlock()
	if res.IsError && !res.Rejected {
		return t.toolContent(header, tools.Result{Text: prompt.ToolError(res.Text), Images: res.Images,
			UserFeedback: res.UserFeedback}), 0
	}
	return t.toolContent(header, res), 0
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
func (t *Task) mistake(header, _ string, res tools.Result) []llm.Content {
	t.mu.Lock()
	t.guards.mistake() // counted once, as a mistake, not also as a repetition
	t.mu.Unlock()
	if header == "" {
		header = "[unknown tool] Result:"
	} else if !strings.HasPrefix(header, "[") {
		header = "[" + header + "] Result:"
	}
	return t.toolContent(header, tools.Result{Text: prompt.ToolError(res.Text)})
}

// toolContent builds the next user turn from a result: the `[tool for 'arg'] Result:` header,
// the text, images, and the user's feedback.
func (t *Task) toolContent(header string, res tools.Result) []llm.Content {
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
		content = append(content, llm.Text(feedbackOpen+t.expand(context.Background(), res.UserFeedback)+"\n</feedback>"))
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

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// setFocusChain stores a checklist the model sent with a tool call.
func (t *Task) setFocusChain(list string) {
	t.mu.Lock()
	changed := t.conv.meta.FocusChain != list
	t.conv.meta.FocusChain = list
	t.focus.requestsSince = 0
	t.saveMetaLocked()
	t.publishStateLocked()
	t.mu.Unlock()
	if changed {
		t.say(msg.SayTaskProgress, list, &msg.Progress{Markdown: list}, false)
	}
}

// focusDue says when the todo-list reminder is due (spec §7): the first turn, after a
// PLAN→ACT switch, after the user edited the list, and every few requests without an update.
// Its fields are guarded by Task.mu (docs/task-runtime.md).
type focusDue struct {
	requestsSince int // requests since the focus chain was last updated
	progressEdit  bool
	planToAct     bool
}

// next counts a request and reports whether the reminder goes with it, and whether the user
// edited the list; a reminder given starts the count over.
func (f *focusDue) next(first bool, interval int) (due, edited bool) {
	f.requestsSince++
	due = first || f.planToAct || f.progressEdit || f.requestsSince > interval
	if !due {
		return false, false
	}
	edited = f.progressEdit
	*f = focusDue{}
	return true, edited
}

// focusChainReminder adds the todo-list instructions when due (focusDue).
func (t *Task) focusChainReminder(first bool) []llm.Content {
	if !t.settings().FocusChainEnabled {
		return nil
	}
	interval := t.settings().FocusChainInterval
	if interval <= 0 {
		interval = 6
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	due, edited := t.focus.next(first, interval)
	if !due {
		return nil
	}
	list := t.conv.meta.FocusChain
	text := prompt.FocusChainReminder(list, list == "")
	if edited {
		text = "The user edited the todo list. The current list is:\n" + list + "\n\n" + text
	}
	return []llm.Content{llm.Text(text)}
}

// env builds the tool environment for this task.
func (t *Task) env() *tools.Env {
	s := t.settings()
	scratch := t.scratchDir()
	return &tools.Env{
		Files:   t.deps.Files,
		Host:    t.deps.Host,
		UI:      &taskUI{t: t, row: -1},
		Mode:    t.Mode(),
		Scratch: scratch,
		Account: account{t},
		Settings: tools.Settings{
			OutputLineLimit:   s.OutputLineLimit,
			OutputByteLimit:   s.OutputByteLimit,
			ReadFileLineLimit: s.ReadFileLineLimit,
			FullEditResults:   s.FullEditResults,
			SupportsImages:    t.deps.ModelInfo.SupportsImages,
		},
	}
}

// taskUI is the tools.UI of a task. A fresh one serves each tool call (env), so the row it
// remembers is that call's approval row.
type taskUI struct {
	t *Task

	// mu guards row.
	mu  sync.Mutex
	row int // index of the row the last Approve posted for the action; -1: none
}

var askToSay = map[msg.Kind]msg.Kind{
	msg.AskTool:                msg.SayTool,
	msg.AskCommand:             msg.SayCommand,
	msg.AskBrowserActionLaunch: msg.SayBrowserActionLaunch,
	msg.AskUseMCPServer:        msg.SayMCPServerRequestStarted,
}

// Approve applies the auto-approval policy, else asks.
func (u *taskUI) Approve(ctx context.Context, req tools.Approval) (tools.Answer, error) {
	t := u.t
	u.setRow(-1)
	policy := t.settings().AutoApprove
	if autoApproved(policy, req) {
		limit := policy.MaxRequests
		t.mu.Lock()
		over := t.guards.autoApproval(limit, policy.YOLO)
		t.mu.Unlock()
		if over {
			ans, err := t.ask(ctx, msg.AskAutoApprovalMaxReached,
				"Cairn has auto-approved the maximum number of requests in a row. Continue?", nil)
			if err != nil {
				return tools.Answer{}, err
			}
			t.mu.Lock()
			t.guards.autoApproved = 0
			t.mu.Unlock()
			if !ans.Approved {
				return ans, nil
			}
		}
		say := askToSay[req.Ask]
		if say == "" {
			say = msg.SayTool
		}
		u.setRow(t.say(say, req.Text, req.Payload, false))
		return tools.Answer{Approved: true, Auto: true}, nil
	}
	if t.sub != nil {
		return tools.Answer{Text: strings.TrimSpace(subRefused)}, nil
	}
	t.mu.Lock()
	pa := t.postAskLocked(req.Ask, req.Text, req.Payload)
	t.mu.Unlock()
	u.setRow(pa.index)
	ans, err := t.awaitAnswer(ctx, pa)
	if err != nil {
		return ans, err
	}
	t.mu.Lock()
	t.guards.autoApproved = 0
	t.mu.Unlock()
	return ans, nil
}

func (u *taskUI) setRow(i int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.row = i
}

// RecordOutcome sets the outcome on the tool payload of the last approval's row. The payload
// is copied, never changed in place: earlier events and snapshots share it.
func (u *taskUI) RecordOutcome(_ context.Context, o msg.Outcome) {
	u.mu.Lock()
	row := u.row
	u.mu.Unlock()
	if row < 0 {
		return
	}
	u.t.updateMessage(row, func(m *msg.Message) {
		if p, ok := m.Payload.(*msg.Tool); ok {
			c := *p
			c.Outcome = o
			// The row is written again with its outcome: a large proposal is kept whole once
			// (in the approval's record) and shortened here, so a file's content is not stored
			// twice.
			c.Content = shortened(c.Content)
			c.Diff = shortened(c.Diff)
			m.Payload = &c
		}
	})
}

// outcomeRowLimit is how much of a proposal's content or diff the outcome's copy of the row keeps.
const outcomeRowLimit = 64 << 10

// shortened cuts s to outcomeRowLimit bytes (on a rune boundary) with a note.
func shortened(s string) string {
	if len(s) <= outcomeRowLimit {
		return s
	}
	return strings.ToValidUTF8(s[:outcomeRowLimit], "") + fmt.Sprintf("\n[… %d more bytes not repeated here]\n", len(s)-outcomeRowLimit)
}

// Ask posts an ask and waits.
func (u *taskUI) Ask(ctx context.Context, kind msg.Kind, text string, payload msg.Payload) (tools.Answer, error) {
	return u.t.ask(ctx, kind, text, payload)
}

// Say posts a say.
func (u *taskUI) Say(_ context.Context, kind msg.Kind, text string, payload msg.Payload, partial bool) {
	u.t.say(kind, text, payload, partial)
}
