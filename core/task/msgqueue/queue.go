// Package msgqueue is a task's message queue: text the user sends while a run is active and no
// question is open. It lives in the task (not the chat view), so it survives a closed sidebar
// and every client sees the same queue in the task's state. The queue is not saved: a daemon
// restart ends the run it waited for, and the user sees the queue gone. When its messages leave
// is the task's decision (docs/task-runtime.md); the queue only keeps them.
package msgqueue

import (
	"strconv"
	"strings"
	"sync"
)

// Item is a message waiting for the current step to end.
type Item struct {
	ID     string
	Text   string
	Images []string
}

// Queue is the queue itself, safe for concurrent use. Its lock is a leaf: no method calls out
// while holding it.
type Queue struct {
	// mu guards items and seq.
	mu    sync.Mutex
	items []Item
	seq   int // the last queued message's number, for its id
}

// Push appends a message with a new id.
func (q *Queue) Push(text string, images []string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.seq++
	q.items = append(q.items, Item{ID: "q" + strconv.Itoa(q.seq), Text: text, Images: images})
}

// Remove drops the message with id and reports whether it was there.
func (q *Queue) Remove(id string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i, m := range q.items {
		if m.ID == id {
			q.items = append(q.items[:i:i], q.items[i+1:]...)
			return true
		}
	}
	return false
}

// Joined is the queue taken at once: its messages, and their texts joined by a blank line with
// the images together, as one message.
type Joined struct {
	Items  []Item
	Text   string
	Images []string
}

// Pop empties the queue and returns its messages; false when it was empty.
func (q *Queue) Pop() (Joined, bool) {
	q.mu.Lock()
	items := q.items
	q.items = nil
	q.mu.Unlock()
	if len(items) == 0 {
		return Joined{}, false
	}
	texts := make([]string, 0, len(items))
	var images []string
	for _, m := range items {
		if m.Text != "" {
			texts = append(texts, m.Text)
		}
		images = append(images, m.Images...)
	}
	return Joined{Items: items, Text: strings.Join(texts, "\n\n"), Images: images}, true
}

// List copies the queue (nil when empty).
func (q *Queue) List() []Item {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return nil
	}
	return append([]Item(nil), q.items...)
}

// Len is how many messages wait.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items)
}
