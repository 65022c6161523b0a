package llmtest_test

import (
	"context"
	"sync"
	"testing"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

func TestRoutesKeepTheirOwnPlace(t *testing.T) {
	srv := llmtest.New(t, llmtest.Script{
		Turns: []llmtest.Turn{{Text: "main 1"}, {Text: "main 2"}},
		Routes: []llmtest.Route{
			{FirstUserContains: "[A]", Turns: []llmtest.Turn{{Text: "a 1"}, {Text: "a 2"}}},
			{FirstUserContains: "[B]", Turns: []llmtest.Turn{{Text: "b 1"}}},
		},
	})
	p := provider(srv)
	ctx := context.Background()
	steps := []struct{ user, want string }{
		{"task [B]", "b 1"},
		{"task [A]", "a 1"},
		{"plain task", "main 1"},
		{"task [A]", "a 2"},
		{"plain task", "main 2"},
	}
	for _, s := range steps {
		if got := collect(ctx, p, request(s.user)); got.err != nil || got.text != s.want {
			t.Fatalf("%q: got %q (%v), want %q", s.user, got.text, got.err, s.want)
		}
	}
	if n := srv.Remaining(); n != 0 {
		t.Errorf("remaining = %d, want 0", n)
	}
}

// A gate answers nobody until all its requests have arrived: each of the three requests
// below can only finish because the other two were in flight at the same time.
func TestGateReleasesTogether(t *testing.T) {
	gate := &llmtest.Gate{Name: "g", Count: 3}
	var routes []llmtest.Route
	for _, m := range []string{"[1]", "[2]", "[3]"} {
		routes = append(routes, llmtest.Route{FirstUserContains: m, Turns: []llmtest.Turn{{Text: "ok " + m, Gate: gate}}})
	}
	srv := llmtest.New(t, llmtest.Script{Routes: routes})
	p := provider(srv)
	var wg sync.WaitGroup
	got := make([]string, 3)
	for i, m := range []string{"[1]", "[2]", "[3]"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = collect(context.Background(), p, request("task "+m)).text
		}()
	}
	wg.Wait()
	for i, m := range []string{"[1]", "[2]", "[3]"} {
		if got[i] != "ok "+m {
			t.Errorf("request %s: got %q", m, got[i])
		}
	}
	if err := srv.Err(); err != nil {
		t.Error(err)
	}
}
