// Package asks owns the question a task has open: at most one ask waits for an answer, and
// the answer travels on the ask's own channel, so whoever answers never blocks and never
// holds a lock while the asker wakes (docs/task-runtime.md).
package asks

import (
	"context"
	"errors"
	"sync"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

// Errors of answering.
var (
	ErrNoOpenAsk = errors.New("the task is not waiting for an answer")
	ErrStaleAsk  = errors.New("that question was already answered")
)

// Pending is one ask posted in the chat, waiting for its answer.
type Pending struct {
	Index int               // its row
	Kind  msg.Kind          // what it asks
	ch    chan tools.Answer // buffered (one): the one answer it gets
}

// answer hands the answer to the asker; it never blocks (the ask was taken from the open
// slot by exactly one caller).
func (p *Pending) answer(a tools.Answer) { p.ch <- a }

// Wait waits for the answer or ctx.
func (p *Pending) Wait(ctx context.Context) (tools.Answer, error) {
	select {
	case a := <-p.ch:
		return a, nil
	case <-ctx.Done():
		return tools.Answer{}, ctx.Err()
	}
}

// Owner is a task's open question.
type Owner struct {
	// mu guards open.
	mu   sync.Mutex
	open *Pending // the ask waiting for an answer, nil when none
}

// Post makes a new ask, shown at row index, the open one.
func (o *Owner) Post(index int, kind msg.Kind) *Pending {
	p := &Pending{Index: index, Kind: kind, ch: make(chan tools.Answer, 1)}
	o.mu.Lock()
	o.open = p
	o.mu.Unlock()
	return p
}

// Answer answers the open ask when match accepts it: ErrNoOpenAsk when none is open,
// ErrStaleAsk when match refuses it. The check and the answer are one step, so an answer
// never lands on another question that opened in the meantime.
func (o *Owner) Answer(match func(*Pending) bool, a tools.Answer) error {
	p, err := o.take(match)
	if err != nil {
		return err
	}
	p.answer(a)
	return nil
}

// AnswerPosted answers p, which was just posted and is still the open ask, at once (a queued
// message answers it). It reports false, answering nothing, when p is no longer open.
func (o *Owner) AnswerPosted(p *Pending, a tools.Answer) bool {
	if _, err := o.take(func(open *Pending) bool { return open == p }); err != nil {
		return false
	}
	p.answer(a)
	return true
}

// Withdraw closes p without an answer (the step it belonged to ended); it reports whether p
// was still open.
func (o *Owner) Withdraw(p *Pending) bool {
	_, err := o.take(func(open *Pending) bool { return open == p })
	return err == nil
}

// take closes the open ask when match accepts it and returns it.
func (o *Owner) take(match func(*Pending) bool) (*Pending, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case o.open == nil:
		return nil, ErrNoOpenAsk
	case !match(o.open):
		return nil, ErrStaleAsk
	}
	p := o.open
	o.open = nil
	return p, nil
}

// Open returns the open ask, or nil.
func (o *Owner) Open() *Pending {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.open
}

// Kind is the kind of the open ask, or "".
func (o *Owner) Kind() msg.Kind {
	if p := o.Open(); p != nil {
		return p.Kind
	}
	return ""
}

// Index is the row of the open ask, or -1.
func (o *Owner) Index() int {
	if p := o.Open(); p != nil {
		return p.Index
	}
	return -1
}
