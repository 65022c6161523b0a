package task

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
)

// Two daemons on one data dir (two Managers here): the second's resume of a task the first
// has open is refused with the holder's pid and the --connect hint, deleting it is refused
// too, the history still lists it; once the first closes the task, the second opens it.
func TestSecondManagerRefusedWhileFirstHoldsTask(t *testing.T) {
	r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{{Text: completion}}})
	data := t.TempDir()
	open := func() *Manager {
		st, err := store.Open(data)
		if err != nil {
			t.Fatal(err)
		}
		m := NewManager(st, r.mgr.deps)
		t.Cleanup(func() { m.CloseAll(context.Background()) })
		return m
	}
	first, second := open(), open()
	shake := filepath.Join(data, "daemon.json")
	first.Store().SetHandshake(shake)
	ctx := context.Background()
	tk, err := first.New(ctx, Options{Workspace: []string{"."}}, "start", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitAsk(t, tk, msg.AskCompletionResult)

	_, err = second.Open(ctx, tk.ID(), "")
	if !errors.Is(err, store.ErrLocked) || errors.Is(err, ErrNotFound) {
		t.Fatalf("second Open: %v, want store.ErrLocked", err)
	}
	for _, want := range []string{strconv.Itoa(os.Getpid()), shake, "cairn resume --connect " + tk.ID()} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q lacks %q", err, want)
		}
	}
	if _, ok := second.Get(tk.ID()); ok {
		t.Error("the refused task is loaded in the second manager")
	}
	if err := second.Delete(ctx, tk.ID()); !errors.Is(err, store.ErrLocked) {
		t.Errorf("second Delete: %v, want store.ErrLocked", err)
	}
	metas, err := second.Store().List()
	if err != nil || len(metas) != 1 || metas[0].ID != tk.ID() {
		t.Errorf("history while held = %v, %v", metas, err)
	}

	first.Clear(ctx, tk.ID())
	again, err := second.Open(ctx, tk.ID(), "")
	if err != nil {
		t.Fatalf("second Open after the first closed the task: %v", err)
	}
	waitAsk(t, again, msg.AskResumeCompletedTask)
	if _, err := first.Open(ctx, tk.ID(), ""); !errors.Is(err, store.ErrLocked) {
		t.Errorf("first Open while the second holds it: %v, want store.ErrLocked", err)
	}
}

// One manager reopening a task it is closing, or opening it from many requests at once, never
// meets its own lock.
func TestReopenInOneManagerNotRefused(t *testing.T) {
	r := newRig(t, llmtest.Script{Turns: []llmtest.Turn{{Text: completion}}})
	ctx := context.Background()
	tk := r.newTask("start")
	waitAsk(t, tk, msg.AskCompletionResult)
	id := tk.ID()
	r.mgr.Clear(ctx, id)
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			_, err := r.mgr.Open(ctx, id, "")
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.mgr.Clear(ctx, id)
	}()
	if _, err := r.mgr.Open(ctx, id, ""); err != nil {
		t.Errorf("Open during Clear: %v", err)
	}
	<-done
}
