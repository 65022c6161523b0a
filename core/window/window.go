// Package window fits a task's API history into the model's context window (docs/prompt.md, "The
// context window"). It is a projection: the history on disk is never rewritten. Each request is
// built by Project from the whole history and a per-task State that remembers how much of the
// middle of the conversation has been dropped, so that the prefix sent to the model stays the same
// from one request to the next (prompt caching) until the next truncation.
//
// Two savings apply. Duplicate file contents (copies of a file from read_file results, edit
// results' final content and @-mentions) are replaced by a short note when State.Dedup is set,
// in a way that keeps the sent prefix byte-stable between truncations (stable.go): a new copy
// equal to the latest one is noted when it arrives, and superseded older copies are noted only
// at a settlement. When the previous request used more than MaxAllowed tokens, the middle of
// the conversation is truncated, unless deduplicating already saves at least 30% of the
// characters.
package window

import (
	_ "embed"
	"fmt"
	"sync"

	"github.com/cairnhq/cairn/core/internal/mdsections"
	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/llm"
)

// notes.md holds the model-facing notes, one `## key` section each.
//
//go:embed notes.md
var notesMD string

// notes is split into its sections on first use.
var notes = lazy.Value[map[string]string]{New: func() map[string]string { return mdsections.Split(notesMD) }}

// DefaultWindow is assumed when the model's context window is unknown (0).
const DefaultWindow = 128_000

// MaxAllowed is how many tokens a request may use in a window of contextWindow tokens: the
// rest is a buffer for the reply and for estimation error (docs/prompt.md, "The context window").
func MaxAllowed(contextWindow int) int {
	if contextWindow <= 0 {
		contextWindow = DefaultWindow
	}
	switch contextWindow {
	case 64_000:
		return contextWindow - 27_000
	case 128_000:
		return contextWindow - 30_000
	case 200_000:
		return contextWindow - 40_000
	}
	return max(contextWindow-40_000, contextWindow*8/10)
}

// minDedupSaving is the share of characters that deduplication must save, when the window is
// full, for truncation to be skipped.
const minDedupSaving = 0.30

// Keep says how much of the conversation after the first exchange survives a truncation.
type Keep int

const (
	// KeepHalf removes about half of the messages after the kept head.
	KeepHalf Keep = iota + 1
	// KeepQuarter removes about three quarters of them.
	KeepQuarter
)

// headLen is the number of messages always kept: the first user message (the task), the first
// assistant reply and the user message answering it (its tool result goes with it).
const headLen = 3

// State is one task's projection state. The zero value deduplicates nothing; set Dedup when
// creating it. A State must not be shared between tasks.
type State struct {
	// Dedup replaces older copies of a file's content by a note.
	Dedup bool

	// mu guards the fields below (the task loop is the only caller; the lock makes that safe
	// to rely on rather than to assume).
	mu sync.Mutex
	// removed is how many messages from index headLen on are dropped. It only grows, so the
	// projected prefix stays stable, until the history becomes shorter than it (a restore).
	removed int
	// seen is the history length of the last Project: a longer history is a new turn and the
	// only moment a new truncation is decided, so retries reuse the decision.
	seen int
	// sentChars is the character count of the last projection, the baseline against which the
	// next deduplication's saving is measured.
	sentChars int
	// shrink asks the next Project for a quarter truncation (after a context window error).
	shrink bool
	// decided is the deduplicated form of each history message (Dedup only), fixed when the
	// message first appears and remade only at a settlement; src holds the messages they
	// were made from, to notice a history that changed under them.
	decided, src []llm.Message
}

// Removed returns how many messages the current projection leaves out.
func (s *State) Removed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.removed
}

// Shrink makes the next Project drop three quarters of the messages after the kept head,
// whatever the token count: the provider said the request did not fit, and the loop retries
// once silently.
func Shrink(s *State) {
	s.mu.Lock()
	s.shrink = true
	s.mu.Unlock()
}

// Project returns the messages to send for history in a window of contextWindow tokens
// (0 = unknown), given the tokens the previous request used (0 = unknown: estimated offline).
// It never modifies history or the contents it refers to; unchanged messages are shared.
func Project(history []llm.Message, s *State, lastTokens int64, contextWindow int) []llm.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	limit := int64(MaxAllowed(contextWindow))
	if len(history) < s.seen || headLen+s.removed >= len(history) {
		// The history was cut back (a restore): start again.
		s.removed, s.seen, s.sentChars = 0, 0, 0
		s.decided, s.src = nil, nil
	}
	fresh := len(history) > s.seen
	var baseline int
	if fresh && s.seen > 0 && s.sentChars > 0 {
		baseline = s.sentChars + chars(history[s.seen:])
	}
	s.seen = len(history)

	msgs := s.decide(history)
	out := s.render(msgs)
	switch {
	case s.shrink:
		s.shrink = false
		s.extend(history, KeepQuarter)
		s.settle(history)
		out = s.render(s.decide(history))
	case fresh:
		if lastTokens <= 0 && int64(chars(out)) > limit {
			lastTokens = estimate(out)
		}
		if lastTokens < limit {
			if s.Dedup && staleShare(out) >= restaleShare {
				s.settle(history)
				out = s.render(s.decide(history))
			}
			break
		}
		keep := KeepHalf
		if lastTokens/2 > limit {
			keep = KeepQuarter
		}
		if baseline == 0 {
			baseline = chars(s.render(history))
		}
		if s.Dedup && baseline > 0 {
			saved := 1 - float64(chars(dedup(out)))/float64(baseline)
			if saved >= minDedupSaving {
				s.settle(history)
				out = s.render(s.decide(history))
				break
			}
		}
		s.extend(history, keep)
		s.settle(history)
		out = s.render(s.decide(history))
	}
	s.sentChars = chars(out)
	return out
}

// render builds the projection before deduplication: the head, the truncation note in the
// first message when something was removed, and the messages after the removed range.
func (s *State) render(history []llm.Message) []llm.Message {
	if s.removed == 0 {
		return append([]llm.Message(nil), history...)
	}
	out := make([]llm.Message, 0, len(history)-s.removed)
	out = append(out, history[:headLen]...)
	out = append(out, history[headLen+s.removed:]...)
	first := out[0]
	first.Content = append(append([]llm.Content(nil), first.Content...), llm.Text(notes.Get()["truncated"]))
	out[0] = first
	return out
}

// extend grows the removed range per keep.
func (s *State) extend(history []llm.Message, keep Keep) {
	s.removed = NextRemoved(history, s.removed, keep)
}

// NextRemoved returns how many messages after the head a truncation leaves out, given that
// removed already are. It removes an even count of the rest (half, or three quarters), then
// moves the end back until the first kept message after the range is an assistant reply, so
// the projection alternates user/assistant and every assistant message keeps the user message
// that answers it. The last message is always kept.
func NextRemoved(history []llm.Message, removed int, keep Keep) int {
	if len(history) <= headLen || history[0].Role != llm.RoleUser ||
		history[1].Role != llm.RoleAssistant || history[2].Role != llm.RoleUser {
		return removed
	}
	start := headLen + removed
	rest := len(history) - start
	if rest <= 0 {
		return removed
	}
	n := rest / 4 * 2
	if keep == KeepQuarter {
		n = rest * 3 / 4 / 2 * 2
	}
	n = min(n, rest-1)
	for n > 0 && history[start+n].Role != llm.RoleAssistant {
		n--
	}
	return removed + n
}

func chars(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		for _, c := range m.Content {
			n += len(c.Text)
		}
		for _, tc := range m.ToolCalls {
			n += len(tc.Name) + len(tc.Arguments)
		}
	}
	return n
}

// estimate counts the tokens of msgs offline.
func estimate(msgs []llm.Message) int64 {
	var n int64
	for _, m := range msgs {
		for _, c := range m.Content {
			n += int64(llm.CountTokens(c.Text))
		}
		for _, tc := range m.ToolCalls {
			n += int64(llm.CountTokens(tc.Arguments))
		}
	}
	return n
}

func note(key string, args ...any) string {
	return fmt.Sprintf(notes.Get()[key], args...)
}
