package toolcall

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/msg"
	corepolicy "github.com/cairnhq/cairn/core/policy"
	"github.com/cairnhq/cairn/core/telemetry"
	"github.com/cairnhq/cairn/core/tools"
)

// Env is the tool environment of one call (or one preview), with a UI of its own: the row it
// remembers is that call's approval row.
func Env(d Deps) *tools.Env { return d.Task.Env(&UI{d: d, row: -1}) }

// UI is the tools.UI of a task's tool call: the tool asks for its approval, asks the user and
// tells the chat through it.
type UI struct {
	d Deps

	// mu guards row.
	mu  sync.Mutex
	row int // index of the row the last Approve posted for the action; -1: none
}

var askToSay = lazy.Value[map[msg.Kind]msg.Kind]{New: func() map[msg.Kind]msg.Kind {
	return map[msg.Kind]msg.Kind{
		msg.AskTool:                msg.SayTool,
		msg.AskCommand:             msg.SayCommand,
		msg.AskBrowserActionLaunch: msg.SayBrowserActionLaunch,
		msg.AskUseMCPServer:        msg.SayMCPServerRequestStarted,
	}
}}

// subRefused is a subagent's answer to an approval the policy does not give.
//
//go:embed sub_refused.md
var subRefused string

// Approve applies the policy files and the auto-approval settings (core/policy), else asks.
// What the policy denies or refuses is not run and nobody is asked; the chat and the model are
// told why.
func (u *UI) Approve(ctx context.Context, req tools.Approval) (tools.Answer, error) {
	d := u.d
	u.setRow(-1)
	// The policy's switches hold for settings changed while the task runs too (--yolo); the
	// approval card says what they refused.
	settings, refused := d.Policy.Clamp(d.Task.Settings())
	policy := settings.AutoApprove
	decision := d.Policy.Decide(corepolicy.Input{Settings: policy, Approval: req})
	rec := telemetry.Or(d.Recorder)
	if decision.Verdict == corepolicy.Deny || decision.Verdict == corepolicy.Refuse {
		rec.Approval(ctx, telemetry.Approval{Category: string(req.Category), Verdict: string(decision.Verdict)})
		d.Chat.Say(msg.SayError, strings.Join(decision.Lines(), "\n"), nil, false)
		return tools.Answer{Text: corepolicy.ModelText(decision)}, nil
	}
	if decision.Verdict == corepolicy.Run {
		limit := policy.MaxRequests
		if d.Guards.AutoApproval(limit, policy.YOLO) {
			ans, _, err := d.Task.Ask(ctx, msg.AskAutoApprovalMaxReached,
				"Cairn has auto-approved the maximum number of requests in a row. Continue?", nil, nil)
			if err != nil {
				return tools.Answer{}, err
			}
			d.Guards.UserApproved()
			if !ans.Approved {
				return ans, nil
			}
		}
		say := askToSay.Get()[req.Ask]
		if say == "" {
			say = msg.SayTool
		}
		u.setRow(d.Chat.Say(say, req.Text, req.Payload, false))
		rec.Approval(ctx, telemetry.Approval{Category: string(req.Category), Verdict: string(decision.Verdict), Approved: true})
		return tools.Answer{Approved: true, Auto: true}, nil
	}
	if d.Sub != nil {
		return tools.Answer{Text: strings.TrimSpace(subRefused)}, nil
	}
	why := &msg.Why{Lines: decision.Lines(), Locked: decision.Locked}
	for _, r := range refused {
		why.Lines = append(why.Lines, "note: "+r.Error())
	}
	ans, row, err := d.Task.Ask(ctx, req.Ask, req.Text, req.Payload, why)
	u.setRow(row)
	if err != nil {
		return ans, err
	}
	rec.Approval(ctx, telemetry.Approval{Category: string(req.Category), Verdict: string(decision.Verdict), Approved: ans.Approved})
	d.Guards.UserApproved()
	return ans, nil
}

func (u *UI) setRow(i int) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.row = i
}

// RecordOutcome sets the outcome on the tool payload of the last approval's row. The payload
// is copied, never changed in place: earlier events and snapshots share it.
func (u *UI) RecordOutcome(_ context.Context, o msg.Outcome) {
	u.mu.Lock()
	row := u.row
	u.mu.Unlock()
	if row < 0 {
		return
	}
	u.d.Chat.Update(row, func(m *msg.Message) {
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
func (u *UI) Ask(ctx context.Context, kind msg.Kind, text string, payload msg.Payload) (tools.Answer, error) {
	ans, _, err := u.d.Task.Ask(ctx, kind, text, payload, nil)
	return ans, err
}

// Say posts a say; a completion's row says whether the work changed files (core/task/checkpoints).
func (u *UI) Say(ctx context.Context, kind msg.Kind, text string, payload msg.Payload, partial bool) {
	if p, ok := payload.(*msg.Completion); ok && kind == msg.SayCompletionResult && !partial {
		u.d.Checkpoints.MarkChanges(ctx, p)
	}
	u.d.Chat.Say(kind, text, payload, partial)
}
