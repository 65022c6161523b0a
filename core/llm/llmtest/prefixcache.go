package llmtest

import "strings"

// A provider's prompt cache serves the longest prefix of a request's prompt that an earlier
// request already sent, token by token: one changed byte early in the conversation makes
// everything after it a miss. The fake measures the same thing on the prompt as it is
// rendered for the model — each message's role and text in order — at its usual estimate of
// four bytes a token. There is no minimum length or block rounding: the figure is the upper
// bound a real cache approaches.

// prefixUsage returns the prompt tokens of req and how many of them an earlier request's
// prompt shares from the start.
func prefixUsage(earlier []Request, req Request) (prompt, cached int64) {
	p := renderPrompt(req)
	best := 0
	for _, e := range earlier {
		best = max(best, commonPrefix(renderPrompt(e), p))
	}
	return int64(len(p)+3) / 4, int64(best) / 4
}

func renderPrompt(r Request) string {
	var b strings.Builder
	for _, m := range r.Messages {
		b.WriteString("<|" + m.Role + "|>\n")
		b.WriteString(m.Text)
		for _, img := range m.Images {
			b.WriteString("\n<|image|>" + img)
		}
		b.WriteString("\n<|end|>\n")
	}
	return b.String()
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// recorded returns the n-th request received (1-based), as recorded with its usage.
func (s *Server) recorded(n int) Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[n-1]
}
