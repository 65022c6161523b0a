package task

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/host/direct"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/llm/openai"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/interact"
	"github.com/cairnhq/cairn/core/workspace"
)

// fakeAccount is a parent's account.
type fakeAccount struct {
	exhausted string

	// mu guards requests and cost.
	mu       sync.Mutex
	requests int
	cost     float64
}

func (a *fakeAccount) AddRequest() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.requests++
}

func (a *fakeAccount) AddUsage(_ llm.Usage, cost float64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cost += cost
}

func (a *fakeAccount) Exhausted() string { return a.exhausted }

// panicTurns crashes the loop that uses it.
type panicTurns struct{ bareTurns }

func (panicTurns) EnvDetails(context.Context, EnvRequest) string { panic("env details exploded") }

// A subagent ends one of four ways, and each is a report for the parent, never a crash: it
// reports; it reaches its own bound; the parent's limit stops it; its loop panics. Whatever
// it spent is charged to the parent.
func TestSubagentEndings(t *testing.T) {
	cases := []struct {
		name      string
		turns     []llmtest.Turn
		max       int
		exhausted string
		crash     bool
		done      bool
		want      string // in the report or the error
		requests  int
		cost      float64
	}{
		{name: "reports", turns: []llmtest.Turn{priced(noteCall("a"), 0.25), priced(llmtest.Turn{Text: completion}, 0.25)},
			done: true, want: "Done.", requests: 2, cost: 0.5},
		{name: "own bound", max: 2, turns: []llmtest.Turn{priced(noteCall("a"), 0.25), priced(noteCall("b"), 0.25)},
			want: "limit of 2 requests", requests: 2, cost: 0.5},
		{name: "parent limit", exhausted: "This task has made 9 model requests, its limit of 9.",
			want: "parent task reached its limit", requests: 0},
		{name: "panic", crash: true, want: "internal error", requests: 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Script{Turns: c.turns})
			root := t.TempDir()
			ws, err := workspace.New(root)
			if err != nil {
				t.Fatal(err)
			}
			reg := tools.NewRegistry(&noteTool{}, interact.Completion{})
			deps := Deps{Provider: openai.New(openai.Config{BaseURL: srv.URL(), APIKey: "k"}), Model: "fake",
				Registry: reg, Host: direct.New("", []string{root}), Files: ws, Settings: config.Default()}
			if c.crash {
				deps.Turns = panicTurns{}
			}
			acct := &fakeAccount{exhausted: c.exhausted}
			changes := 0
			sub := NewSub(deps, SubOptions{Account: acct, MaxRequests: c.max, OnChange: func() { changes++ }})
			res := RunSubs(context.Background(), []*Task{sub}, []string{"look around"})[0]
			text := res.Report + res.Error
			if res.Done != c.done || !strings.Contains(text, c.want) {
				t.Fatalf("got %+v, want done=%v with %q", res, c.done, c.want)
			}
			if res.Requests != c.requests || acct.requests != c.requests || acct.cost != c.cost || res.Cost != c.cost {
				t.Errorf("requests %d (parent %d), cost %v (parent %v); want %d and %v",
					res.Requests, acct.requests, res.Cost, acct.cost, c.requests, c.cost)
			}
			if c.requests > 0 && changes == 0 {
				t.Error("the observer was never told of a change")
			}
			if err := srv.Err(); err != nil {
				t.Error(err)
			}
		})
	}
}
