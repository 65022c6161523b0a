package task

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/cairnhq/cairn/core/hooks"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task/settings"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/window"
)

// loop is the recursive request loop (docs/architecture.md, "One message, end to end"), written as
// iteration.
func (t *Task) loop(ctx context.Context, content []llm.Content, first bool) ending {
	for {
		if ctx.Err() != nil {
			return endCancelled
		}
		if err := t.conv.PauseUntilSaved(ctx, func(ctx context.Context) error {
			_, err := t.ask(ctx, msg.AskResumeTask, "", nil)
			return err
		}); err != nil {
			return endCancelled
		}
		note, end := t.checkMistakes(ctx)
		if end != 0 {
			return end
		}
		content = append(content, note...)
		feedback, end := t.checkLimits(ctx)
		if end != 0 {
			return end
		}
		if feedback != "" {
			content = append(content, llm.Text(feedbackOpen+t.deps.Turns.ExpandUser(ctx, feedback)+"\n</feedback>"))
		}

		content = append(content, t.turnExtras(ctx, first)...)
		if ctx.Err() != nil {
			return endCancelled
		}
		if first {
			t.cps.StartFirst(ctx)
		}
		t.conv.AppendAPI(llm.Message{Role: llm.RoleUser, Content: content})
		first = false
		if t.hooks.On() {
			meta := t.conv.Meta()
			// PreCompact, when the projection is about to truncate the history: the last
			// request used more of the window than a request may.
			t.hooks.Truncation(ctx, meta.ContextTokens, window.MaxAllowed(t.cfg.For(meta.Mode == ModePlan).Info.ContextWindow),
				len(t.conv.History()))
		}

		r, err := t.request(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return endCancelled
			}
			return endFailed
		}
		t.conv.AppendAPI(r.assistantMessage())

		if r.tool == nil {
			content = t.noToolRan(r)
			continue
		}
		var next []llm.Content
		if t.guards.Repeated(*r.tool) {
			next, end = t.stopRepeating(ctx, *r.tool)
		} else {
			next, end = t.runTool(ctx, *r.tool)
		}
		if end != 0 {
			return end
		}
		content = append(r.answerCalls(next), t.takeQueued(ctx)...)
	}
}

// checkMistakes asks the user, once the model made MistakeLimit mistakes in a row, whether
// to go on; going on starts the count over and passes the user's guidance to the model.
func (t *Task) checkMistakes(ctx context.Context) ([]llm.Content, ending) {
	limit := t.cfg.Settings().MistakeLimit
	if limit <= 0 {
		limit = 3
	}
	if t.guards.Mistakes() < limit {
		return nil, 0
	}
	ans, err := t.ask(ctx, msg.AskMistakeLimitReached,
		"Cairn is having trouble: the same kind of mistake happened several times in a row. "+
			"You can add guidance and let it continue.", nil)
	if err != nil {
		return nil, endCancelled
	}
	if !ans.Approved && ans.Text == "" {
		return nil, endFailed
	}
	note := []llm.Content{llm.Text(prompt.TooManyMistakes(ans.Text))}
	if ans.Text != "" {
		t.conv.Say(msg.SayUserFeedback, ans.Text, nil, false)
	}
	t.guards.ForgiveMistakes()
	return note, 0
}

// turnExtras is what goes with every user turn after its own content: what hooks added, the
// todo-list reminder when due, the auto-condense note and the environment details.
func (t *Task) turnExtras(ctx context.Context, first bool) []llm.Content {
	var content []llm.Content
	content = append(content, t.hooks.Take()...)
	content = append(content, t.todo.Reminder(first, t.cfg.Settings().FocusChainEnabled, t.cfg.Settings().FocusChainInterval)...)
	content = append(content, t.autoCondenseNote()...)
	meta := t.conv.Meta()
	req := EnvRequest{First: first, Mode: meta.Mode, ContextTokens: meta.ContextTokens,
		ContextWindow: int64(t.cfg.For(meta.Mode == ModePlan).Info.ContextWindow)}
	if env := t.deps.Turns.EnvDetails(ctx, req); env != "" {
		content = append(content, llm.Text(env))
	}
	t.bg.ReportEnded()
	return content
}

// noToolRan is the next user turn after a reply that ran no tool; both cases count as a
// mistake. A reply that ended early never runs its unfinished tool call: the model is told
// why and asked for smaller steps. A reply without a tool call is reminded to use one.
func (t *Task) noToolRan(r reply) []llm.Content {
	t.guards.NoToolRan()
	switch {
	case r.cut != nil || r.finish == llm.FinishLength:
		return []llm.Content{llm.Text(r.cutOffNote())}
	case r.native:
		return []llm.Content{llm.Text(prompt.NoToolsUsedNative())}
	}
	return []llm.Content{llm.Text(prompt.NoToolsUsed())}
}

// request streams one model response, showing text as it arrives, and returns the assistant
// message to record (cut after the first tool call) and that call. Failures are retried as
// docs/prompt.md, "Providers and retries", says and then asked about (api_req_failed).
func (t *Task) request(ctx context.Context) (reply, error) {
	const maxAutoRetries = 3
	for attempt := 0; ; attempt++ {
		r, err := t.attempt(ctx)
		if err == nil {
			return r, nil
		}
		if ctx.Err() != nil {
			return reply{}, ctx.Err()
		}
		if llm.IsContextWindow(err) && attempt == 0 {
			t.hooks.Compact(ctx, hooks.CompactTruncate, t.conv.Meta().ContextTokens, len(t.conv.History()))
			t.deps.Turns.ContextOverflow() // the projection shrinks on the next attempt
			continue
		}
		if attempt < maxAutoRetries && !llm.IsPermanent(err) {
			delay := time.Duration(2<<attempt) * time.Second
			if t.backoff(ctx, &msg.Retry{Attempt: attempt + 1, MaxAttempt: maxAutoRetries,
				DelaySec: int(delay / time.Second), Error: userError(err)}, delay) != nil {
				return reply{}, ctx.Err()
			}
			continue
		}
		ans, aerr := t.ask(ctx, msg.AskAPIReqFailed, userError(err), nil)
		if aerr != nil {
			return reply{}, aerr
		}
		if !ans.Approved {
			return reply{}, err
		}
		t.conv.Say(msg.SayAPIReqRetried, "", nil, false)
		attempt = -1
	}
}

func userError(err error) string {
	var apiErr *llm.APIError
	if errors.As(err, &apiErr) {
		return apiErr.Error()
	}
	return err.Error()
}

// attempt makes one request: it projects the window, builds the request, reads the stream
// (showing it as it arrives), accounts the usage and settles a cancel or a broken stream.
func (t *Task) attempt(ctx context.Context) (reply, error) {
	mode, full, history := t.projectWindow()
	reqIdx := t.conv.Say(msg.SayAPIReqStarted, "", &msg.APIRequest{}, false)
	t.countRequest()
	m := t.cfg.For(mode == ModePlan)
	system := t.deps.Turns.SystemPrompt(mode, m.Info, full)
	// The request has its own context so that, once the tool call is complete, the rest of the
	// stream (only read for its usage report) can be cut short without cancelling the task.
	reqCtx, cancelReq := context.WithCancel(ctx)
	defer cancelReq()
	native := m.Info.NativeTools()
	stream, err := t.cfg.Provider().Stream(reqCtx, t.modelRequest(m, system, history, native))
	if err != nil {
		t.finishRequest(ctx, reqIdx, llm.Usage{}, err, false)
		return reply{}, err
	}
	defer func() {
		// The stream is read to its end or cut short; a failure to release it loses nothing.
		if err := stream.Close(); err != nil {
			t.deps.Logger.Debug("task: closing the model stream", "task", t.id, "err", err)
		}
	}()

	pr := presenter{t: t}
	sr := newStreamReader(native, grammarOf(t.deps.Registry))
	sr.onReasoning = func(all string) { t.conv.Say(msg.SayReasoning, all, nil, true) }
	sr.onBlocks = func(blocks []parse.Block) { pr.show(ctx, blocks) }
	// Wait briefly for the usage report that ends the stream, no longer.
	sr.onToolDone = func() { time.AfterFunc(drainWait, cancelReq) }
	res := sr.read(stream)

	usage := res.usage
	if !res.gotUsage && res.received && ctx.Err() == nil {
		usage = estimateUsage(system, history, res.blocks)
	}
	pr.final = true
	return t.settleAttempt(ctx, reqIdx, &pr, res, usage)
}

// projectWindow is the request's conversation: the mode, the whole API history (for the
// system prompt's rules) and the history condensed and projected into the window, where every
// native call goes with its result whatever the projection dropped or moved.
func (t *Task) projectWindow() (mode string, full, history []llm.Message) {
	var meta store.Meta
	t.conv.Read(func(_ []msg.Message, api []llm.Message, m *store.Meta) { meta, full = *m, slices.Clone(api) })
	mode = meta.Mode
	history = condensed(full, meta)
	lastTokens := meta.ContextTokens
	return mode, full, window.Pair(t.deps.Turns.Project(history, lastTokens, t.cfg.For(mode == ModePlan).Info.ContextWindow))
}

// settleAttempt shows the end of a read stream and records the request: a cancelled request
// keeps what was said, marked as interrupted; a broken one is undone for a retry; a finished
// one returns its reply (a cut-off tool call is dropped and the user told).
func (t *Task) settleAttempt(ctx context.Context, reqIdx int, pr *presenter, res streamResult, usage llm.Usage) (reply, error) {
	if ctx.Err() != nil {
		// An unfinished tool call never runs.
		t.deps.Registry.DiscardPreviews(ctx)
		pr.show(ctx, res.blocks)
		t.conv.FinishPartials()
		t.conv.AppendAPI(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(res.interrupted)}})
		t.finishRequest(ctx, reqIdx, usage, context.Canceled, false)
		return reply{}, ctx.Err()
	}
	if err := res.failure(); err != nil {
		// A broken stream (network, idle timeout) is retried from the start: whatever the
		// partial call opened is undone first.
		t.deps.Registry.DiscardPreviews(ctx)
		t.conv.FinishPartials()
		t.finishRequest(ctx, reqIdx, usage, err, false)
		return reply{}, err
	}
	r := res.reply
	if r.cut != nil {
		t.deps.Registry.DiscardPreviews(ctx)
	}
	pr.show(ctx, res.blocks)
	t.conv.FinishPartials()
	t.finishRequest(ctx, reqIdx, usage, nil, r.limitHit())
	if r.cut != nil {
		t.conv.Say(msg.SayError, cutOffRow(r), nil, false)
	}
	return r, nil
}

// modelRequest builds the request: in native mode the tools travel as function definitions;
// the reasoning effort setting goes to models that take one.
func (t *Task) modelRequest(m settings.Model, system string, history []llm.Message, native bool) llm.Request {
	req := llm.Request{Model: m.Name, System: system, Messages: history, MaxTokens: m.Info.MaxOutput}
	s := t.cfg.Settings()
	if native && t.deps.Registry != nil {
		req.Tools = prompt.ToolDefinitions(tools.ForModel(t.deps.Registry.OfferedSpecs(), m.Info.SupportsImages), s.FocusChainEnabled)
	}
	if m.Info.ReasoningEffort {
		req.ReasoningEffort = s.API.ReasoningEffort
	}
	return req
}

// drainWait is how long the rest of a stream is read after the tool call, for its usage.
const drainWait = 2 * time.Second

// grammarOf is the grammar of the tools of reg (nil: every Cairn tool).
func grammarOf(reg *tools.Registry) parse.Grammar {
	if reg == nil {
		return parse.DefaultGrammar()
	}
	return parse.Grammar(reg.Grammar())
}

// finishRequest records a request's usage and cost on its api_req_started row and the task.
func (t *Task) finishRequest(ctx context.Context, idx int, u llm.Usage, err error, outputLimit bool) {
	cost := llm.Cost(t.cfg.For(t.Mode() == ModePlan).Info, u)
	payload := &msg.APIRequest{TokensIn: u.InputTokens, TokensOut: u.OutputTokens,
		CacheReads: u.CacheReadTokens, CacheWrites: u.CacheWriteTokens, Cost: cost, Done: true, OutputLimit: outputLimit}
	if err != nil {
		if ctx.Err() != nil {
			payload.CancelReason = "user_cancelled"
		} else {
			payload.CancelReason = "streaming_failed"
			payload.Error = userError(err)
		}
	}
	t.conv.Update(idx, func(m *msg.Message) { m.Payload = payload })
	t.conv.AddUsage(u, cost, true)
	t.mu.Lock()
	t.publishStateLocked()
	t.mu.Unlock()
	if t.sub != nil {
		t.sub.Used(u, cost)
	}
}
