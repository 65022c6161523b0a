package task

import (
	"time"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
)

// conversation is what a task says and remembers: the chat rows, the API history the model
// reads, the header (meta) and the journal they are written to. Its fields are guarded by
// Task.mu (docs/task-runtime.md); writing to the journal is persist.go's.
type conversation struct {
	messages []msg.Message
	api      []llm.Message
	meta     store.Meta
	log      journal
	// saved is what a failed write left off the disk (persist.go).
	saved saved
	// lastPersist is when each partial message was last written (at most once a second).
	lastPersist map[int]time.Time
}

func newConversation(meta store.Meta, log journal) conversation {
	c := conversation{meta: meta, log: log, lastPersist: map[int]time.Time{}}
	c.saved.reset()
	return c
}

// recentPartialSay returns the index of a partial say of kind among the last few rows (a
// question may have been asked since), or -1.
func (c *conversation) recentPartialSay(kind msg.Kind) int {
	for i := len(c.messages) - 1; i >= 0 && i >= len(c.messages)-4; i-- {
		m := c.messages[i]
		if m.Partial && m.Type == msg.Say && m.Kind == kind {
			return i
		}
	}
	return -1
}

// recentPartials returns the indexes of the partial rows among the last 50, newest first.
func (c *conversation) recentPartials() []int {
	var idx []int
	for i := len(c.messages) - 1; i >= 0 && i >= len(c.messages)-50; i-- {
		if c.messages[i].Partial {
			idx = append(idx, i)
		}
	}
	return idx
}

// historyCopy returns a copy of the API history.
func (c *conversation) historyCopy() []llm.Message {
	return append([]llm.Message(nil), c.api...)
}

// addUsage adds a request's usage and cost to the header; a reported total becomes the
// context size.
func (c *conversation) addUsage(u llm.Usage, cost float64) {
	c.meta.TokensIn += u.InputTokens
	c.meta.TokensOut += u.OutputTokens
	c.meta.CacheReads += u.CacheReadTokens
	c.meta.CacheWrites += u.CacheWriteTokens
	c.meta.Cost += cost
	if total := u.Total(); total > 0 {
		c.meta.ContextTokens = total
	}
}

// requestsAfter sums the usage of the requests recorded after row index (the rows a restore
// cuts) and counts them; saidLater reports that the user sent words among those rows.
func (c *conversation) requestsAfter(index int) (removed msg.APIRequest, count int, saidLater bool) {
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
