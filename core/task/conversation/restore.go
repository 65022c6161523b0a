package conversation

import (
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
)

// FeedbackOpen starts every block that carries the user's own words to the model.
const FeedbackOpen = "<feedback>\n"

// interruptedRequest is shown on a request row that was in flight when the daemon stopped.
const interruptedRequest = "Interrupted: Cairn stopped before the response ended."

// Reopen fills a conversation loaded from the store with its rows and API history, and
// finishes what the daemon was doing when it stopped (a cancel, a restart, or a crash): rows
// left streaming are complete, a request that never ended is marked as interrupted rather
// than left spinning, and a resume question left by an earlier opening is removed (a fresh
// one is asked). fix adjusts the rows first (bounding old output rows). It reports whether the
// task had completed.
func (c *Conversation) Reopen(ms []msg.Message, api []llm.Message, fix func([]msg.Message)) (completed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.messages, c.api = ms, api
	if fix != nil {
		fix(c.messages)
	}
	for i := range c.messages {
		m := &c.messages[i]
		changed := m.Partial
		m.Partial = false
		if req, ok := m.Payload.(*msg.APIRequest); ok && m.Kind == msg.SayAPIReqStarted && !req.Done {
			r := *req
			r.Done, r.CancelReason, r.Error = true, "streaming_failed", interruptedRequest
			m.Payload, changed = &r, true
		}
		if changed {
			c.persistLocked(*m, true)
		}
	}
	n := len(c.messages)
	for n > 0 && isResumeAsk(c.messages[n-1]) {
		n--
	}
	if n < len(c.messages) {
		c.messages = c.messages[:n]
		c.truncateMessagesLocked(n)
	}
	if n := len(c.messages); n > 0 && c.messages[n-1].Type == msg.Ask && c.messages[n-1].Kind == msg.AskCompletionResult {
		c.meta.Completed = true
	}
	return c.meta.Completed
}

func isResumeAsk(m msg.Message) bool {
	return m.Type == msg.Ask && (m.Kind == msg.AskResumeTask || m.Kind == msg.AskResumeCompletedTask)
}

// DropOpenResume removes an unanswered resume question left as the last row (a fresh one is
// asked after a restore); the caller knows no ask is open.
func (c *Conversation) DropOpenResume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.messages)
	if n == 0 || !isResumeAsk(c.messages[n-1]) {
		return
	}
	c.messages = c.messages[: n-1 : n-1]
	c.truncateMessagesLocked(n - 1)
	c.obs.Reset()
}

// Cut keeps the rows up to and including index and the first apiLen API messages; the removed
// requests' usage is kept as one deleted_api_reqs row.
func (c *Conversation) Cut(index, apiLen int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	removed, count, saidLater := c.requestsAfterLocked(index)
	keep := index + 1
	c.messages = append([]msg.Message(nil), c.messages[:keep]...)
	c.truncateMessagesLocked(keep)
	if apiLen < len(c.api) {
		c.api = c.api[:apiLen:apiLen]
		c.truncateAPILocked(apiLen)
	}
	if saidLater && apiLen > 0 && apiLen <= len(c.api) {
		// Words the user sent while the tool ran (queued) went out with the tool's result,
		// the message this checkpoint keeps; their rows are cut, so they go from it too.
		if m, ok := withoutLaterFeedback(c.api[apiLen-1]); ok {
			c.api = c.api[: apiLen-1 : apiLen-1]
			c.truncateAPILocked(apiLen - 1)
			c.appendAPILocked(m)
		}
	}
	c.lastPersist = map[int]time.Time{}
	c.meta.Completed = false
	c.saveMetaLocked()
	if count > 0 {
		removed.Done = true
		m := msg.Message{Index: len(c.messages), Time: c.now(), Type: msg.Say, Kind: msg.SayDeletedAPIReqs, Payload: &removed}
		c.messages = append(c.messages, m)
		c.persistLocked(m, true)
	}
	c.obs.Reset()
}

// requestsAfterLocked sums the usage of the requests recorded after row index (the rows a
// restore cuts) and counts them; saidLater reports that the user sent words among those rows.
func (c *Conversation) requestsAfterLocked(index int) (removed msg.APIRequest, count int, saidLater bool) {
	for _, m := range c.messages[index+1:] {
		saidLater = saidLater || m.Type == msg.Say && m.Kind == msg.SayUserFeedback
		if p, ok := m.Payload.(*msg.APIRequest); ok && (m.Kind == msg.SayAPIReqStarted || m.Kind == msg.SayDeletedAPIReqs) {
			removed.TokensIn += p.TokensIn
			removed.TokensOut += p.TokensOut
			removed.CacheReads += p.CacheReads
			removed.CacheWrites += p.CacheWrites
			removed.Cost += p.Cost
			count++
		}
	}
	return removed, count, saidLater
}

// withoutLaterFeedback returns the user message m without the feedback blocks that follow its
// first block (the tool's result): those are messages the user queued while the tool ran.
// ok is false when m has none.
func withoutLaterFeedback(m llm.Message) (llm.Message, bool) {
	if m.Role != llm.RoleUser || len(m.Content) < 2 {
		return m, false
	}
	kept := []llm.Content{m.Content[0]}
	for _, c := range m.Content[1:] {
		if c.Type == llm.ContentText && strings.HasPrefix(c.Text, FeedbackOpen) {
			continue
		}
		kept = append(kept, c)
	}
	if len(kept) == len(m.Content) {
		return m, false
	}
	m.Content = kept
	return m, true
}

// MarkCondensed records that the next user message (the condense tool's result) is where the
// conversation continues from the accepted summary.
func (c *Conversation) MarkCondensed(summary string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.meta.CondensedAt = len(c.api)
	c.meta.CondensedSummary = summary
	c.saveMetaLocked()
}
