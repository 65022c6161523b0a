package task

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

// What a task gives its tools: the environment of a call (env), the UI through which a tool
// asks and tells the chat (taskUI), and the account its subagents charge (account).

// env builds the tool environment for this task.
func (t *Task) env() *tools.Env {
	s := t.cfg.Settings()
	scratch := scratchDir(t.conv.Dir())
	mode := t.Mode()
	return &tools.Env{
		Files:   t.deps.Files,
		Host:    t.deps.Host,
		UI:      &taskUI{t: t, row: -1},
		Mode:    mode,
		Scratch: scratch,
		Account: account{t},
		Settings: tools.Settings{
			OutputLineLimit:   s.OutputLineLimit,
			OutputByteLimit:   s.OutputByteLimit,
			ReadFileLineLimit: s.ReadFileLineLimit,
			FullEditResults:   s.FullEditResults,
			SupportsImages:    t.cfg.For(mode == ModePlan).Info.SupportsImages,
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
	policy := t.cfg.Settings().AutoApprove
	if autoApproved(policy, req) {
		limit := policy.MaxRequests
		if t.guards.AutoApproval(limit, policy.YOLO) {
			ans, err := t.ask(ctx, msg.AskAutoApprovalMaxReached,
				"Cairn has auto-approved the maximum number of requests in a row. Continue?", nil)
			if err != nil {
				return tools.Answer{}, err
			}
			t.guards.UserApproved()
			if !ans.Approved {
				return ans, nil
			}
		}
		say := askToSay[req.Ask]
		if say == "" {
			say = msg.SayTool
		}
		u.setRow(t.conv.Say(say, req.Text, req.Payload, false))
		return tools.Answer{Approved: true, Auto: true}, nil
	}
	if t.sub != nil {
		return tools.Answer{Text: strings.TrimSpace(subRefused)}, nil
	}
	t.mu.Lock()
	pa := t.postAskLocked(req.Ask, req.Text, req.Payload)
	t.mu.Unlock()
	u.setRow(pa.Index)
	ans, err := t.awaitAnswer(ctx, pa)
	if err != nil {
		return ans, err
	}
	t.guards.UserApproved()
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
	u.t.conv.Update(row, func(m *msg.Message) {
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

// Say posts a say; a completion's row says whether the work changed files (core/task/checkpoints).
func (u *taskUI) Say(ctx context.Context, kind msg.Kind, text string, payload msg.Payload, partial bool) {
	if p, ok := payload.(*msg.Completion); ok && kind == msg.SayCompletionResult && !partial {
		u.t.cps.MarkChanges(ctx, p)
	}
	u.t.conv.Say(kind, text, payload, partial)
}

// subRefused is a subagent's answer to an approval the policy does not give.
//
//go:embed sub_refused.md
var subRefused string

// account is a task's tools.Account: what its subagents charge to it.
type account struct{ t *Task }

func (a account) AddRequest() { a.t.countRequest() }

func (a account) AddUsage(u llm.Usage, cost float64) {
	t := a.t
	t.conv.AddUsage(u, cost, false)
	t.mu.Lock()
	t.publishStateLocked()
	t.mu.Unlock()
}

func (a account) Exhausted() string {
	return a.t.guards.OverLimit(a.t.conv.Meta().Cost)
}
