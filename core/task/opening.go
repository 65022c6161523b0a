package task

import (
	"context"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/hooks"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/tools"
)

// How a run opens: the rows it posts once it was accepted, and the first user turn it sends.
// A run opens a new task (Start), resumes one after an interruption, or carries the user's
// feedback after the task stopped (run.go decides which, and when).

// opening is how a run opens. prepare runs first on the run's goroutine (it posts the user's
// row, which therefore appears only when the run was accepted); first builds the first turn's
// content; firstTurn says it is the task's very first turn (the first checkpoint is taken).
type opening struct {
	prepare   func()
	first     func(ctx context.Context) []llm.Content
	firstTurn bool
}

// startOpening opens a new task with the user's text, images and attached files.
func startOpening(p *parts, text string, images, files []string) opening {
	return opening{prepare: func() {
		p.conv.Say(msg.SayTask, text, nil, false)
		if mode := p.conv.Meta().Mode; !p.cfg.PricesKnown(mode) {
			m := p.cfg.For(mode)
			if note := p.guards.UnpricedNote(m.Name, m.Info.Included); note != "" {
				p.conv.Say(msg.SayInfo, note, nil, false)
			}
		}
		// A setting the policy files refused was turned off for the task: the chat says which,
		// and which file refused it (docs/settings.md, "Policy files").
		for _, r := range p.deps.Refused {
			p.conv.Say(msg.SayInfo, r.Error(), nil, false)
		}
		p.conv.Attach(images, files)
	}, first: func(ctx context.Context) []llm.Content {
		meta := p.hooks.Meta()
		meta.InitialTask = text
		p.hooks.Fire(ctx, hooks.TaskStart, hooks.TaskData{TaskMetadata: meta})
		p.hooks.Prompt(ctx, text, files)
		content := []llm.Content{llm.Text("<task>\n" + p.deps.Turns.ExpandUser(ctx, text) + "\n</task>")}
		return append(content, imageContents(images)...)
	}, firstTurn: true}
}

// resumeOpening continues the conversation after an interruption with a resumption note and
// the user's answer to the resume question.
func resumeOpening(p *parts, ans tools.Answer, completed bool, elapsed time.Duration) opening {
	return opening{prepare: func() {
		if ans.Text != "" {
			p.conv.Say(msg.SayUserFeedback, ans.Text, nil, false)
		}
	}, first: func(ctx context.Context) []llm.Content {
		p.hooks.Resume(ctx, p.conv.Messages())
		if ans.Text != "" {
			p.hooks.Prompt(ctx, ans.Text, nil)
		}
		var content []llm.Content
		// A user turn left without an answer (the request was in flight) is merged into this one.
		if m, ok := p.conv.TakeUnanswered(); ok {
			content = append(content, withoutEnvDetails(m.Content)...)
		}
		var mode string
		p.conv.SetMeta(func(m *store.Meta) { mode, m.Completed = m.Mode, false })
		content = append(content, llm.Text(prompt.ResumeNote(elapsed, completed, mode)))
		content = append(content, interruptedCommandNote(p.conv.History(), p.conv.Messages())...)
		content = append(content, p.bg.GoneNote(p.conv.Messages())...)
		if ans.Text != "" {
			content = append(content, llm.Text("<user_message>\n"+p.deps.Turns.ExpandUser(ctx, ans.Text)+"\n</user_message>"))
		}
		return append(content, imageContents(ans.Images)...)
	}}
}

// feedbackOpening carries the user's text as feedback after the task stopped.
func feedbackOpening(p *parts, text string, images []string) opening {
	return opening{prepare: func() {
		p.conv.Say(msg.SayUserFeedback, text, nil, false)
	}, first: func(ctx context.Context) []llm.Content {
		p.hooks.Prompt(ctx, text, nil)
		c := []llm.Content{llm.Text(feedbackOpen + p.deps.Turns.ExpandUser(ctx, text) + "\n</feedback>")}
		return append(c, imageContents(images)...)
	}}
}

// withoutEnvDetails drops the environment details block of an old turn (a fresh one follows).
func withoutEnvDetails(cs []llm.Content) []llm.Content {
	out := make([]llm.Content, 0, len(cs))
	for _, c := range cs {
		if c.Type == llm.ContentText && strings.HasPrefix(c.Text, "<environment_details>") {
			continue
		}
		out = append(out, c)
	}
	return out
}
