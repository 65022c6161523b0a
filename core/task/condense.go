package task

import (
	_ "embed"
	"strings"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/window"
)

// Condensing (/compact, /smol, auto-condense; docs/architecture.md, "Condensing"): once the user
// accepts the model's summary, requests send the task, the summary and what follows instead of the
// earlier turns. The history on disk is untouched; the condensing point is kept in the task's
// metadata, so a resumed task goes on from the summary too.

// autoCondenseMD asks the model to condense when the window is nearly full.
//
//go:embed condense.md
var autoCondenseMD string

// DefaultAutoCondensePercent is the auto-condense threshold when the setting is unset.
const DefaultAutoCondensePercent = 75

// condensed applies the last accepted condense (meta's) to history.
func condensed(history []llm.Message, meta store.Meta) []llm.Message {
	if meta.CondensedAt == 0 {
		return history
	}
	return window.Condense(history, meta.CondensedAt, meta.CondensedSummary)
}

// autoCondenseNote returns the instruction to condense for the user turn being built when
// auto-condense is on and the last request used more than the threshold of the window. It is
// not added to the turn that answers a condense (its token count predates the condense), nor
// when too little conversation is live to be worth summarising.
func (l *runLoop) autoCondenseNote() []llm.Content {
	s := l.cfg.Settings()
	if !s.AutoCondense {
		return nil
	}
	var tokens int64
	var at, n int
	var mode string
	l.conv.Read(func(_ []msg.Message, api []llm.Message, m *store.Meta) {
		tokens, at, n, mode = m.ContextTokens, m.CondensedAt, len(api), m.Mode
	})
	live := n
	if at > 0 && at <= n {
		live = n - at + 1
	}
	if at == n || live <= 2 {
		return nil
	}
	if !AutoCondenseDue(tokens, l.cfg.For(mode).Info.ContextWindow, s.AutoCondensePercent) {
		return nil
	}
	return []llm.Content{llm.Text(strings.TrimSpace(autoCondenseMD))}
}

// AutoCondenseDue reports whether a request of tokens tokens, in a window of contextWindow
// tokens (0: unknown), reaches the auto-condense threshold of percent % (0 or out of range:
// the default), capped at what a request may use at all (window.MaxAllowed).
func AutoCondenseDue(tokens int64, contextWindow, percent int) bool {
	if tokens <= 0 {
		return false
	}
	if percent <= 0 || percent > 100 {
		percent = DefaultAutoCondensePercent
	}
	if contextWindow <= 0 {
		contextWindow = window.DefaultWindow
	}
	threshold := min(contextWindow*percent/100, window.MaxAllowed(contextWindow))
	return tokens >= int64(threshold)
}
