// Package hookpoints is a task's part in the user's hooks (docs/architecture.md, "Hooks"): it
// fires the hooks of each point of the task's life, shows their failures and skips in the
// chat, and keeps what they add to the conversation until the next request takes it. Every
// point is fired on the task's loop goroutine without a task lock held; only PreToolUse may
// stop something: the tool call it blocks.
package hookpoints

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/cairnhq/cairn/core/hooks"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

// Runner runs the user's hooks for one event (core/hooks.Runner implements it). Fire returns
// when the event's hooks are done, never fails (a broken hook is a note in the result), and
// cancelling ctx stops a hook that is running.
type Runner interface {
	Fire(ctx context.Context, ev hooks.Event) hooks.Result
}

// Say posts a row in the task's chat.
type Say func(kind msg.Kind, text string, payload msg.Payload, partial bool) int

// CancelWait bounds the TaskCancel hooks: they run after the run's context ended, and a
// Cancel without a deadline of its caller's waits only a few seconds for the loop to stop.
const CancelWait = 4 * time.Second

// Points are one task's hook points.
type Points struct {
	run    Runner // nil: no hooks
	taskID string
	say    Say

	// mu guards added.
	mu sync.Mutex
	// added is what hooks added to the conversation (contextModification), for the next
	// request.
	added []string
}

// New returns the hook points of task taskID over run (nil: none) that tell the chat through
// say.
func New(run Runner, taskID string, say Say) *Points {
	return &Points{run: run, taskID: taskID, say: say}
}

// On reports whether the task runs hooks at all.
func (p *Points) On() bool { return p.run != nil }

// Meta identifies the task to the task events.
func (p *Points) Meta() hooks.TaskMetadata {
	return hooks.TaskMetadata{TaskID: p.taskID, ULID: p.taskID}
}

// Fire runs the hooks of one event, shows their failures and skips, and keeps what they add
// to the conversation.
func (p *Points) Fire(ctx context.Context, kind hooks.Kind, data any) hooks.Result {
	if p.run == nil {
		return hooks.Result{}
	}
	res := p.run.Fire(ctx, hooks.Event{Kind: kind, TaskID: p.taskID, Data: data})
	for _, n := range res.Notes {
		if n.Skipped {
			p.say(msg.SayHook, "Hook "+n.Hook+" was skipped: "+n.Text+". Review and trust it in Settings → Hooks "+
				"(or run cairn run --hooks).", nil, false)
			continue
		}
		p.say(msg.SayHook, "Hook "+n.Hook+" failed: "+n.Text+". The task goes on.", nil, false)
	}
	if blocking := res.Cancel && kind == hooks.PreToolUse; res.ErrorMessage != "" && !blocking {
		p.say(msg.SayHook, string(kind)+" hook: "+res.ErrorMessage, nil, false)
	}
	if res.ContextModification != "" {
		p.mu.Lock()
		p.added = append(p.added, "<hook_context event=\""+string(kind)+"\">\n"+res.ContextModification+"\n</hook_context>")
		p.mu.Unlock()
	}
	return res
}

// Take returns what hooks added since the last request, once.
func (p *Points) Take() []llm.Content {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []llm.Content
	for _, c := range p.added {
		out = append(out, llm.Text(c))
	}
	p.added = nil
	return out
}

// Prompt fires UserPromptSubmit for the user's words.
func (p *Points) Prompt(ctx context.Context, text string, files []string) {
	if files == nil {
		files = []string{}
	}
	p.Fire(ctx, hooks.UserPromptSubmit, hooks.PromptData{Prompt: text, Attachments: files})
}

// Completed fires TaskComplete.
func (p *Points) Completed(ctx context.Context) {
	p.Fire(ctx, hooks.TaskComplete, hooks.TaskData{TaskMetadata: p.Meta()})
}

// Cancelled fires TaskCancel. It runs after the run's context ended, on a short context of its
// own.
func (p *Points) Cancelled(ctx context.Context) {
	hctx, stop := context.WithTimeout(context.WithoutCancel(ctx), CancelWait)
	defer stop()
	meta := p.Meta()
	meta.CompletionStatus = "cancelled"
	p.Fire(hctx, hooks.TaskCancel, hooks.TaskData{TaskMetadata: meta})
}

// PreTool fires PreToolUse; blocked reports that a hook cancelled the call, with the text the
// model receives as the tool's result.
func (p *Points) PreTool(ctx context.Context, call tools.Call) (blocked bool, result string) {
	res := p.Fire(ctx, hooks.PreToolUse, hooks.PreToolData{ToolName: call.Name, Parameters: params(call)})
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
	p.say(msg.SayHook, row, nil, false)
	return true, result
}

// PostTool fires PostToolUse with the call's result.
func (p *Points) PostTool(ctx context.Context, call tools.Call, res tools.Result, took time.Duration) {
	p.Fire(ctx, hooks.PostToolUse, hooks.PostToolData{ToolName: call.Name, Parameters: params(call),
		Result: res.Text, Success: !res.IsError, ExecutionTimeMs: took.Milliseconds()})
}

// Compact fires PreCompact.
func (p *Points) Compact(ctx context.Context, strategy string, tokens int64, messages int) {
	p.Fire(ctx, hooks.PreCompact, hooks.CompactData{ContextSize: tokens, MessagesToCompact: messages,
		CompactionStrategy: strategy})
}

// params is a call's parameters for a hook (never nil: hooks read an object).
func params(call tools.Call) map[string]string {
	if call.Params == nil {
		return map[string]string{}
	}
	return call.Params
}

// Resume fires TaskResume with what the task was before it was resumed: its rows ms.
func (p *Points) Resume(ctx context.Context, ms []msg.Message) {
	prev := hooks.PreviousState{MessageCount: strconv.Itoa(len(ms)), ConversationHistoryDeleted: "false"}
	if n := len(ms); n > 0 {
		prev.LastMessageTs = strconv.FormatInt(ms[n-1].Time.UnixMilli(), 10)
	}
	p.Fire(ctx, hooks.TaskResume, hooks.ResumeData{TaskMetadata: p.Meta(), PreviousState: prev})
}

// Truncation fires PreCompact before a request whose history the projection is about to
// truncate: the last request used tokens, more than the allowed tokens a request may use;
// messages is the length of the API history.
func (p *Points) Truncation(ctx context.Context, tokens int64, allowed, messages int) {
	if !p.On() || tokens <= 0 || tokens < int64(allowed) {
		return
	}
	p.Compact(ctx, hooks.CompactTruncate, tokens, messages)
}
