package task

import (
	"context"
	"strconv"
	"time"

	"github.com/cairnhq/cairn/core/hooks"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/window"
)

// Hook points. Every event is fired on the loop's goroutine without the lock; what a hook adds
// to the conversation (contextModification) waits in t.hookContext and goes with the next
// request. Only PreToolUse may stop something: the tool call it blocks.

// cancelHookWait bounds the TaskCancel hooks: they run after the run's context ended, and
// Cancel, without a deadline of its caller's, waits at most cancelWait for the loop to stop.
const cancelHookWait = 4 * time.Second

// fireHook runs the hooks of one event, shows their failures and skips, and queues what they
// add to the conversation.
func (t *Task) fireHook(ctx context.Context, kind hooks.Kind, data any) hooks.Result {
	if t.deps.Hooks == nil {
		return hooks.Result{}
	}
	res := t.deps.Hooks.Fire(ctx, hooks.Event{Kind: kind, TaskID: t.id, Data: data})
	for _, n := range res.Notes {
		if n.Skipped {
			t.conv.Say(msg.SayHook, "Hook "+n.Hook+" was skipped: "+n.Text+". Review and trust it in Settings → Hooks "+
				"(or run cairn run --hooks).", nil, false)
			continue
		}
		t.conv.Say(msg.SayHook, "Hook "+n.Hook+" failed: "+n.Text+". The task goes on.", nil, false)
	}
	if blocking := res.Cancel && kind == hooks.PreToolUse; res.ErrorMessage != "" && !blocking {
		t.conv.Say(msg.SayHook, string(kind)+" hook: "+res.ErrorMessage, nil, false)
	}
	if res.ContextModification != "" {
		t.mu.Lock()
		t.hookContext = append(t.hookContext, "<hook_context event=\""+string(kind)+"\">\n"+res.ContextModification+"\n</hook_context>")
		t.mu.Unlock()
	}
	return res
}

// takeHookContext returns what hooks added since the last request, once.
func (t *Task) takeHookContext() []llm.Content {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []llm.Content
	for _, c := range t.hookContext {
		out = append(out, llm.Text(c))
	}
	t.hookContext = nil
	return out
}

// taskMeta identifies the task to the task events.
func (t *Task) taskMeta() hooks.TaskMetadata {
	return hooks.TaskMetadata{TaskID: t.id, ULID: t.id}
}

// promptHook fires UserPromptSubmit for the user's words.
func (t *Task) promptHook(ctx context.Context, text string, files []string) {
	if files == nil {
		files = []string{}
	}
	t.fireHook(ctx, hooks.UserPromptSubmit, hooks.PromptData{Prompt: text, Attachments: files})
}

// resumeHook fires TaskResume with what the task was before it was resumed.
func (t *Task) resumeHook(ctx context.Context) {
	ms := t.conv.Messages()
	prev := hooks.PreviousState{MessageCount: strconv.Itoa(len(ms)), ConversationHistoryDeleted: "false"}
	if n := len(ms); n > 0 {
		prev.LastMessageTs = strconv.FormatInt(ms[n-1].Time.UnixMilli(), 10)
	}
	t.fireHook(ctx, hooks.TaskResume, hooks.ResumeData{TaskMetadata: t.taskMeta(), PreviousState: prev})
}

// endHook fires TaskComplete or TaskCancel when a run ends that way. TaskCancel runs after the
// run's context ended, on a short context of its own.
func (t *Task) endHook(ctx context.Context, end ending) {
	switch end {
	case endCompleted:
		t.fireHook(ctx, hooks.TaskComplete, hooks.TaskData{TaskMetadata: t.taskMeta()})
	case endCancelled:
		hctx, stop := context.WithTimeout(context.WithoutCancel(ctx), cancelHookWait)
		defer stop()
		meta := t.taskMeta()
		meta.CompletionStatus = "cancelled"
		t.fireHook(hctx, hooks.TaskCancel, hooks.TaskData{TaskMetadata: meta})
	}
}

// preToolHook fires PreToolUse; blocked reports that a hook cancelled the call, with the
// text the model receives as the tool's result.
func (t *Task) preToolHook(ctx context.Context, call tools.Call) (blocked bool, result string) {
	res := t.fireHook(ctx, hooks.PreToolUse, hooks.PreToolData{ToolName: call.Name, Parameters: params(call)})
	if !res.Cancel {
		return false, ""
	}
	result = res.ErrorMessage
	if result == "" {
		result = hooks.BlockedMessage()
	}
	row := "A PreToolUse hook blocked " + call.Name + "; it did not run."
	if res.ErrorMessage != "" {
		row += " " + res.ErrorMessage
	}
	t.conv.Say(msg.SayHook, row, nil, false)
	return true, result
}

// postToolHook fires PostToolUse with the call's result.
func (t *Task) postToolHook(ctx context.Context, call tools.Call, res tools.Result, took time.Duration) {
	t.fireHook(ctx, hooks.PostToolUse, hooks.PostToolData{ToolName: call.Name, Parameters: params(call),
		Result: res.Text, Success: !res.IsError, ExecutionTimeMs: took.Milliseconds()})
}

// params is a call's parameters for a hook (never nil: hooks read an object).
func params(call tools.Call) map[string]string {
	if call.Params == nil {
		return map[string]string{}
	}
	return call.Params
}

// truncationHook fires PreCompact before a request whose history the projection is about to
// truncate: the last request used more of the window than a request may.
func (t *Task) truncationHook(ctx context.Context) {
	if t.deps.Hooks == nil {
		return
	}
	meta := t.conv.Meta()
	tokens, n, mode := meta.ContextTokens, len(t.conv.History()), meta.Mode
	if tokens <= 0 || tokens < int64(window.MaxAllowed(t.modelFor(mode).info.ContextWindow)) {
		return
	}
	t.compactHook(ctx, "truncate", tokens, n)
}

// compactHook fires PreCompact.
func (t *Task) compactHook(ctx context.Context, strategy string, tokens int64, messages int) {
	t.fireHook(ctx, hooks.PreCompact, hooks.CompactData{ContextSize: tokens, MessagesToCompact: messages,
		CompactionStrategy: strategy})
}
