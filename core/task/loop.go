package task

import (
	"cmp"
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
	"github.com/cairnhq/cairn/core/telemetry"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/window"
)

// loop is the recursive request loop (docs/architecture.md, "One message, end to end"), written as
// iteration.
func (l *runLoop) loop(ctx context.Context, content []llm.Content, first bool) ending {
	for {
		if ctx.Err() != nil {
			return endCancelled
		}
		if err := l.conv.PauseUntilSaved(ctx, func(ctx context.Context) error {
			_, _, err := l.task.ask(ctx, msg.AskResumeTask, "", nil, nil)
			return err
		}); err != nil {
			return endCancelled
		}
		note, end := l.checkMistakes(ctx)
		if end != 0 {
			return end
		}
		content = append(content, note...)
		feedback, end := l.checkLimits(ctx)
		if end != 0 {
			return end
		}
		if feedback != "" {
			content = append(content, llm.Text(feedbackOpen+l.deps.Turns.ExpandUser(ctx, feedback)+"\n</feedback>"))
		}

		content = append(content, l.turnExtras(ctx, first)...)
		if ctx.Err() != nil {
			return endCancelled
		}
		if first {
			l.cps.StartFirst(ctx)
		}
		l.conv.AppendAPI(llm.Message{Role: llm.RoleUser, Content: content})
		first = false
		if l.hooks.On() {
			meta := l.conv.Meta()
			// PreCompact, when the projection is about to truncate the history: the last
			// request used more of the window than a request may.
			l.hooks.Truncation(ctx, meta.ContextTokens, window.MaxAllowed(l.cfg.For(meta.Mode).Info.ContextWindow),
				len(l.conv.History()))
		}

		// reqCtx carries the request that replied, so that its tool call is traced as its
		// child (README, "OpenTelemetry"); it is cancelled with ctx and no sooner.
		reqCtx, r, err := l.request(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return endCancelled
			}
			return endFailed
		}
		l.conv.AppendAPI(r.assistantMessage())

		if r.tool == nil {
			content = l.noToolRan(r)
			continue
		}
		var next []llm.Content
		if l.guards.Repeated(*r.tool) {
			next, end = l.stopRepeating(reqCtx, *r.tool)
		} else {
			next, end = l.runTool(reqCtx, *r.tool)
		}
		if end != 0 {
			return end
		}
		content = append(r.answerCalls(next), l.queuedTurn(ctx)...)
	}
}

// checkMistakes asks the user, once the model made MistakeLimit mistakes in a row, whether
// to go on; going on starts the count over and passes the user's guidance to the model.
func (l *runLoop) checkMistakes(ctx context.Context) ([]llm.Content, ending) {
	limit := l.cfg.Settings().MistakeLimit
	if limit <= 0 {
		limit = 3
	}
	if l.guards.Mistakes() < limit {
		return nil, 0
	}
	ans, _, err := l.task.ask(ctx, msg.AskMistakeLimitReached,
		"Cairn is having trouble: the same kind of mistake happened several times in a row. "+
			"You can add guidance and let it continue.", nil, nil)
	if err != nil {
		return nil, endCancelled
	}
	if !ans.Approved && ans.Text == "" {
		return nil, endFailed
	}
	note := []llm.Content{llm.Text(prompt.TooManyMistakes(ans.Text))}
	if ans.Text != "" {
		l.conv.Say(msg.SayUserFeedback, ans.Text, nil, false)
	}
	l.guards.ForgiveMistakes()
	return note, 0
}

// turnExtras is what goes with every user turn after its own content: what hooks added, the
// todo-list reminder when due, the auto-condense note and the environment details.
func (l *runLoop) turnExtras(ctx context.Context, first bool) []llm.Content {
	var content []llm.Content
	content = append(content, l.hooks.Take()...)
	content = append(content, l.todo.Reminder(first, l.cfg.Settings().FocusChainEnabled, l.cfg.Settings().FocusChainInterval)...)
	content = append(content, l.autoCondenseNote()...)
	meta := l.conv.Meta()
	req := EnvRequest{First: first, Mode: meta.Mode, ContextTokens: meta.ContextTokens,
		ContextWindow: int64(l.cfg.For(meta.Mode).Info.ContextWindow)}
	if env := l.deps.Turns.EnvDetails(ctx, req); env != "" {
		content = append(content, llm.Text(env))
	}
	l.bg.ReportEnded()
	return content
}

// noToolRan is the next user turn after a reply that ran no tool; both cases count as a
// mistake. A reply that ended early never runs its unfinished tool call: the model is told
// why and asked for smaller steps. A reply without a tool call is reminded to use one.
func (l *runLoop) noToolRan(r reply) []llm.Content {
	l.guards.NoToolRan()
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
// docs/prompt.md, "Providers and retries", says and then asked about (api_req_failed). The
// context it returns is ctx carrying the telemetry of the attempt that replied.
func (l *runLoop) request(ctx context.Context) (context.Context, reply, error) {
	const maxAutoRetries = 3
	for attempt := 0; ; attempt++ {
		reqCtx, r, err := l.attempt(ctx)
		if err == nil {
			return reqCtx, r, nil
		}
		if ctx.Err() != nil {
			return ctx, reply{}, ctx.Err()
		}
		if llm.IsContextWindow(err) && attempt == 0 {
			l.hooks.Compact(ctx, hooks.CompactTruncate, l.conv.Meta().ContextTokens, len(l.conv.History()))
			l.deps.Turns.ContextOverflow() // the projection shrinks on the next attempt
			continue
		}
		if attempt < maxAutoRetries && !llm.IsPermanent(err) {
			delay := time.Duration(2<<attempt) * time.Second
			if l.backoff(ctx, &msg.Retry{Attempt: attempt + 1, MaxAttempt: maxAutoRetries,
				DelaySec: int(delay / time.Second), Error: userError(err)}, delay) != nil {
				return ctx, reply{}, ctx.Err()
			}
			continue
		}
		ans, _, aerr := l.task.ask(ctx, msg.AskAPIReqFailed, userError(err), nil, nil)
		if aerr != nil {
			return ctx, reply{}, aerr
		}
		if !ans.Approved {
			return ctx, reply{}, err
		}
		l.conv.Say(msg.SayAPIReqRetried, "", nil, false)
		attempt = -1
	}
}

// refusedModel is a policy's refusal of the request's model: no retry changes it.
type refusedModel struct{ error }

func (refusedModel) Permanent() bool { return true }

func (e refusedModel) Unwrap() error { return e.error }

func userError(err error) string {
	var apiErr *llm.APIError
	if errors.As(err, &apiErr) {
		return apiErr.Error()
	}
	return err.Error()
}

// attempt makes one request: it projects the window, builds the request, reads the stream
// (showing it as it arrives), accounts the usage and settles a cancel or a broken stream. A
// mode's model the policy files do not list (a mode's own, or one picked since the task
// started) is not sent a request: the user is asked as after a failed one, without retries.
// It returns ctx carrying the request's telemetry (telemetry.Recorder.RequestStarted).
func (l *runLoop) attempt(ctx context.Context) (context.Context, reply, error) {
	mode, full, history := l.projectWindow()
	m := l.cfg.For(mode)
	if err := l.deps.Policy.CheckModel(l.cfg.Settings().API.Preset, m.Name); err != nil {
		return ctx, reply{}, refusedModel{err}
	}
	reqIdx := l.conv.Say(msg.SayAPIReqStarted, "", &msg.APIRequest{}, false)
	l.countRequest()
	ctx = recorderOf(l.deps).RequestStarted(ctx, m.Name)
	system := l.deps.Turns.SystemPrompt(mode, m.Info, full)
	// The request has its own context so that, once the tool call is complete, the rest of the
	// stream (only read for its usage report) can be cut short without cancelling the task.
	reqCtx, cancelReq := context.WithCancel(ctx)
	defer cancelReq()
	native := m.Info.NativeTools()
	stream, err := l.cfg.Provider().Stream(reqCtx, l.modelRequest(m, system, history, native))
	if err != nil {
		l.finishRequest(ctx, reqIdx, llm.Usage{}, err, false)
		return ctx, reply{}, err
	}
	defer func() {
		// The stream is read to its end or cut short; a failure to release it loses nothing.
		if err := stream.Close(); err != nil {
			l.deps.Logger.Debug("task: closing the model stream", "task", l.id, "err", err)
		}
	}()

	pr := presenter{l: l}
	sr := newStreamReader(native, grammarOf(l.deps.Registry))
	sr.onReasoning = func(all string) { l.conv.Say(msg.SayReasoning, all, nil, true) }
	sr.onBlocks = func(blocks []parse.Block) { pr.show(ctx, blocks) }
	// Wait briefly for the usage report that ends the stream, no longer.
	sr.onToolDone = func() { time.AfterFunc(drainWait, cancelReq) }
	res := sr.read(stream)

	usage := res.usage
	if !res.gotUsage && res.received && ctx.Err() == nil {
		usage = estimateUsage(system, history, res.blocks)
	}
	pr.final = true
	r, err := l.settleAttempt(ctx, reqIdx, &pr, res, usage)
	return ctx, r, err
}

// projectWindow is the request's conversation: the mode, the whole API history (for the
// system prompt's rules) and the history condensed and projected into the window, where every
// native call goes with its result whatever the projection dropped or moved.
func (l *runLoop) projectWindow() (mode string, full, history []llm.Message) {
	var meta store.Meta
	l.conv.Read(func(_ []msg.Message, api []llm.Message, m *store.Meta) { meta, full = *m, slices.Clone(api) })
	mode = meta.Mode
	history = condensed(full, meta)
	lastTokens := meta.ContextTokens
	return mode, full, window.Pair(l.deps.Turns.Project(history, lastTokens, l.cfg.For(mode).Info.ContextWindow))
}

// settleAttempt shows the end of a read stream and records the request: a cancelled request
// keeps what was said, marked as interrupted; a broken one is undone for a retry; a finished
// one returns its reply (a cut-off tool call is dropped and the user told).
func (l *runLoop) settleAttempt(ctx context.Context, reqIdx int, pr *presenter, res streamResult, usage llm.Usage) (reply, error) {
	if ctx.Err() != nil {
		// An unfinished tool call never runs.
		l.deps.Registry.DiscardPreviews(ctx)
		pr.show(ctx, res.blocks)
		l.conv.FinishPartials()
		l.conv.AppendAPI(llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text(res.interrupted)}})
		l.finishRequest(ctx, reqIdx, usage, context.Canceled, false)
		return reply{}, ctx.Err()
	}
	if err := res.failure(); err != nil {
		// A broken stream (network, idle timeout) is retried from the start: whatever the
		// partial call opened is undone first.
		l.deps.Registry.DiscardPreviews(ctx)
		l.conv.FinishPartials()
		l.finishRequest(ctx, reqIdx, usage, err, false)
		return reply{}, err
	}
	r := res.reply
	if r.cut != nil {
		l.deps.Registry.DiscardPreviews(ctx)
	}
	pr.show(ctx, res.blocks)
	l.conv.FinishPartials()
	l.finishRequest(ctx, reqIdx, usage, nil, r.limitHit())
	if r.cut != nil {
		l.conv.Say(msg.SayError, cutOffRow(r), nil, false)
	}
	return r, nil
}

// modelRequest builds the request: in native mode the tools travel as function definitions;
// the reasoning effort (the mode's, else the settings') goes to models that take one.
func (l *runLoop) modelRequest(m settings.Model, system string, history []llm.Message, native bool) llm.Request {
	req := llm.Request{Model: m.Name, System: system, Messages: history, MaxTokens: m.Info.MaxOutput}
	s := l.cfg.Settings()
	if native && l.deps.Registry != nil {
		req.Tools = prompt.ToolDefinitions(tools.ForModel(l.deps.Registry.OfferedSpecsIn(l.mode()), m.Info.SupportsImages), s.FocusChainEnabled)
	}
	if m.Info.ReasoningEffort {
		req.ReasoningEffort = cmp.Or(m.Effort, s.API.ReasoningEffort)
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
func (l *runLoop) finishRequest(ctx context.Context, idx int, u llm.Usage, err error, outputLimit bool) {
	m := l.cfg.For(l.mode())
	cost := llm.Cost(m.Info, u)
	recorderOf(l.deps).RequestEnded(ctx, telemetry.Request{Model: m.Name, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CacheRead: u.CacheReadTokens, CacheWrite: u.CacheWriteTokens, Cost: cost, Outcome: requestOutcome(err, ctx.Err() != nil)})
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
	l.conv.Update(idx, func(m *msg.Message) { m.Payload = payload })
	l.conv.AddUsage(u, cost, true)
	l.state.Publish()
	if l.sub != nil {
		l.sub.Used(u, cost)
	}
}
