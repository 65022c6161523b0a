package window

import (
	"github.com/cairnhq/cairn/core/llm"
)

// Prompt caches (OpenAI's automatic one, Anthropic's breakpoints, a local server's KV cache)
// serve the longest prefix a request shares with an earlier one. Rewriting an older message —
// as replacing a superseded file copy by a note does — makes everything after it a miss. So
// deduplication is decided in two ways that leave the prefix alone between settlements:
//
//   - when a message is appended, a file copy in it that repeats, byte for byte, the latest
//     copy of the same file still in the window becomes an "unchanged" note; the older copy
//     stays as it was, and the decision is never revisited;
//   - at a settlement — a truncation, the window running full, or superseded copies making up
//     restaleShare of what is sent — every decision is made again from the original history
//     with the backward rule (dedup: the latest copy of each file kept, older ones noted). The
//     prefix changes once there, and is stable again after it.

// restaleShare is the share of the sent characters that superseded copies must reach before a
// settlement rewrites them: below it, resending them (mostly from the cache) is cheaper than
// the cache miss a rewrite causes.
const restaleShare = 0.40

// decide returns the deduplicated form of every message of history: the forms decided on
// earlier requests are reused as they are, new messages get the forward rule. It resets the
// decisions when the history no longer starts with the messages they were made for.
func (s *State) decide(history []llm.Message) []llm.Message {
	if !s.Dedup {
		return history
	}
	if len(s.src) > len(history) || !samePrefix(s.src, history) {
		s.src, s.decided = nil, nil
	}
	if len(s.decided) == len(history) {
		return s.decided
	}
	latest := map[string]string{} // path → body of its latest whole copy in the window
	visible := func(i int) bool { return i < headLen || i >= headLen+s.removed }
	for i, m := range s.decided {
		if visible(i) {
			record(latest, i, m)
		}
	}
	for i := len(s.decided); i < len(history); i++ {
		m := history[i]
		if m.Role == llm.RoleUser && visible(i) {
			m = repeatsAsNotes(latest, i, m)
			record(latest, i, m)
		}
		s.decided = append(s.decided, m)
		s.src = append(s.src, history[i])
	}
	return s.decided
}

// settle makes every decision again for the messages the projection keeps, with the backward
// rule, from the original history.
func (s *State) settle(history []llm.Message) {
	if !s.Dedup {
		return
	}
	var idx []int
	var kept []llm.Message
	for i := range history {
		if i < headLen || i >= headLen+s.removed {
			idx = append(idx, i)
			kept = append(kept, history[i])
		}
	}
	s.src = append(s.src[:0:0], history...)
	s.decided = append(s.decided[:0:0], history...)
	for j, m := range dedup(kept) {
		s.decided[idx[j]] = m
	}
}

// record notes the whole copies in message i as the latest of their files.
func record(latest map[string]string, i int, m llm.Message) {
	if m.Role != llm.RoleUser {
		return
	}
	for pi, c := range m.Content {
		if c.Type != llm.ContentText && c.Type != llm.ContentToolResult {
			continue
		}
		for _, cp := range copiesIn(i, pi, c.Text) {
			if cp.whole {
				latest[cp.path] = c.Text[cp.start:cp.end]
			} else {
				delete(latest, cp.path) // a slice read since: the model's view is that slice
			}
		}
	}
}

// repeatsAsNotes returns m with every whole copy that equals the latest copy of its file
// replaced by the "unchanged" note. m is copied when changed.
func repeatsAsNotes(latest map[string]string, i int, m llm.Message) llm.Message {
	changed := false
	var content []llm.Content
	seen := map[string]string{}
	for k, v := range latest {
		seen[k] = v
	}
	for pi, c := range m.Content {
		if c.Type != llm.ContentText && c.Type != llm.ContentToolResult {
			continue
		}
		copies := copiesIn(i, pi, c.Text)
		text := c.Text
		// Replace from the end so earlier spans keep their offsets; the latest-copy check
		// runs in order first.
		var repeat []copyAt
		for _, cp := range copies {
			body := c.Text[cp.start:cp.end]
			if prev, ok := seen[cp.path]; ok && cp.whole && prev == body {
				repeat = append(repeat, cp)
				continue
			}
			if cp.whole {
				seen[cp.path] = body
			}
		}
		for k := len(repeat) - 1; k >= 0; k-- {
			cp := repeat[k]
			text = text[:cp.start] + note("unchanged", cp.path) + text[cp.end:]
		}
		if len(repeat) > 0 {
			if !changed {
				content = append([]llm.Content(nil), m.Content...)
				changed = true
			}
			content[pi].Text = text
		}
	}
	if changed {
		m.Content = content
	}
	return m
}

// staleShare is the share of msgs' characters that the backward rule would remove.
func staleShare(msgs []llm.Message) float64 {
	total := chars(msgs)
	if total == 0 {
		return 0
	}
	return 1 - float64(chars(dedup(msgs)))/float64(total)
}

// samePrefix reports whether history starts with the messages of src.
func samePrefix(src, history []llm.Message) bool {
	for i, m := range src {
		h := history[i]
		if h.Role != m.Role || len(h.Content) != len(m.Content) {
			return false
		}
		for j := range m.Content {
			if h.Content[j] != m.Content[j] {
				return false
			}
		}
	}
	return true
}
