package task

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task/asks"
	"github.com/cairnhq/cairn/core/task/msgqueue"
	"github.com/cairnhq/cairn/core/task/runstate"
	"github.com/cairnhq/cairn/core/task/subagent"
	"github.com/cairnhq/cairn/core/tools"
)

// Questions: core/task/asks owns the open one, core/task/runstate the task's status around it.
// Posting a question and answering it are decisions of the run state, which looks at the queue
// and the open question under its own lock (docs/task-runtime.md).

// ask posts an ask and waits for the answer or ctx; it returns the ask's row (-1 for a
// subagent, which asks nobody: core/task/subagent answers for it).
func (c conductor) ask(ctx context.Context, kind msg.Kind, text string, payload msg.Payload, why *msg.Why) (tools.Answer, int, error) {
	if c.p.sub != nil {
		return subagent.Answer(kind), -1, ctx.Err()
	}
	return c.p.state.Ask(ctx, kind, text, payload, why)
}

// takeQueued empties the queue and returns its messages as one: the texts joined by a blank
// line, the images together.
func (c conductor) takeQueued() (msgqueue.Joined, bool) {
	j, ok := c.p.queue.Pop()
	if ok {
		c.p.state.Publish()
	}
	return j, ok
}

// SetMode switches the task's mode (switch_mode).
func (c conductor) SetMode(mode string) error { return setMode(c.p, mode) }

// question is an ask posted in the chat, as the run state sees it (runstate.Question).
type question struct {
	*asks.Pending
	p *parts
}

// Post posts an ask and makes it the open one (runstate.Task); why says why an approval is
// asked (nil for other asks).
func (o others) Post(kind msg.Kind, text string, payload msg.Payload, why *msg.Why) runstate.Question {
	idx := o.p.conv.Add(msg.Message{Type: msg.Ask, Kind: kind, Text: text, Payload: payload, Why: why})
	return question{Pending: o.p.asks.Post(idx, kind), p: o.p}
}

// AskOpen reports whether a question is open (runstate.Task).
func (o others) AskOpen() bool { return o.p.asks.Open() != nil }

// Row is the ask's row.
func (q question) Row() int { return q.Index }

// Withdraw closes the ask without an answer.
func (q question) Withdraw() bool { return q.p.asks.Withdraw(q.Pending) }

// FromQueue answers a question that a message answers (a follow-up question, a PLAN mode
// reply, a completion) with the queued messages, as if the user had typed them into it.
// Approvals are never answered from the queue: a queued message does not reject a tool. It is
// called by the run state right after the post, under its lock, which every answer takes.
func (q question) FromQueue(published func()) {
	p := q.p
	switch q.Kind {
	case msg.AskFollowup, msg.AskPlanModeRespond, msg.AskCompletionResult:
	default:
		return
	}
	if p.asks.Open() != q.Pending {
		return
	}
	j, ok := p.queue.Pop()
	if !ok {
		return
	}
	published()
	// The ask was just posted under this hold of the run state's lock, which every answer
	// takes: it is open.
	if !p.asks.AnswerPosted(q.Pending, tools.Answer{Text: j.Text, Images: j.Images}) {
		p.deps.Logger.Error("bug: a queued message found its question answered; it stays queued", "task", p.id)
		p.queue.Push(j.Text, j.Images)
		published()
	}
}

// answer answers the open ask. index < 0 answers whatever ask is open. With no ask open, an
// approval cuts a backoff wait short (backoff.go).
func answer(p *parts, index int, ans tools.Answer) error {
	return p.state.Answer(func() error {
		err := p.asks.Answer(func(pa *asks.Pending) bool { return index < 0 || index == pa.Index }, ans)
		if errors.Is(err, ErrNoOpenAsk) && p.retry.now(index, ans.Approved) {
			err = nil
		}
		return err
	})
}

// Answer answers the open ask. index < 0 answers whatever ask is open. With no ask open, an
// approval cuts a backoff wait short (backoff.go).
func (t *Task) Answer(index int, ans tools.Answer) error { return answer(t.parts, index, ans) }

// AnswerKind answers the open ask only when it is of kind (ErrNoOpenAsk or ErrStaleAsk
// otherwise), checked and answered at once: an answer given outside the chat, such as Save in
// the editor's diff view, must not land on another question that opened in the meantime.
func (t *Task) AnswerKind(kind msg.Kind, ans tools.Answer) error {
	return t.state.Answer(func() error {
		return t.asks.Answer(func(pa *asks.Pending) bool { return pa.Kind == kind }, ans)
	})
}

// OpenAsk returns the kind of the open ask, or "".
func (t *Task) OpenAsk() msg.Kind { return t.asks.Kind() }

// SetMode switches between PLAN, ACT and the task's other modes (docs/tools.md, "PLAN mode";
// docs/modes.md).
func (t *Task) SetMode(mode string) error { return setMode(t.parts, mode) }

// setMode is SetMode: a switch from PLAN to ACT answers the PLAN reply the task waits on.
func setMode(p *parts, mode string) error {
	if mode != ModeAct && mode != ModePlan && !customMode(p.deps.Modes, mode) {
		return fmt.Errorf("%w: mode %q", ErrBadRequest, mode)
	}
	var old string
	p.conv.SetMeta(func(m *store.Meta) { old, m.Mode = m.Mode, mode })
	p.state.Publish()
	pa := p.asks.Open()
	if old == ModePlan && mode == ModeAct {
		p.todo.SwitchedToAct()
	}
	if old == ModePlan && mode == ModeAct && pa != nil && pa.Kind == msg.AskPlanModeRespond {
		// Answered meanwhile (the user's own reply won the race), the reply needs nothing more.
		if err := answer(p, pa.Index, tools.Answer{Text: prompt.SwitchedToAct()}); err != nil &&
			!errors.Is(err, ErrNoOpenAsk) && !errors.Is(err, ErrStaleAsk) {
			p.deps.Logger.Warn("task: answering the PLAN reply on the switch to ACT", "task", p.id, "err", err)
		}
	}
	return nil
}
