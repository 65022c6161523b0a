package llmtest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/llm/openai"
)

func TestServeFake(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	script := llmtest.Script{Turns: []llmtest.Turn{{Text: "first", Expect: &llmtest.Expect{LastUserContains: []string{"<task>"}}}}}
	go func() { done <- llmtest.ServeFake(ctx, "127.0.0.1:0", script, func(u string) { ready <- u }) }()
	base := <-ready
	if !strings.HasPrefix(base, "http://127.0.0.1:") || !strings.HasSuffix(base, "/v1") {
		t.Fatalf("base URL %q", base)
	}
	p := openai.New(openai.Config{BaseURL: base})
	if r := collect(t.Context(), p, request("<task>go</task>")); r.err != nil || r.text != "first" {
		t.Fatalf("scripted turn: %q, %v", r.text, r.err)
	}
	// Past the script the fake finishes the task instead of failing the run.
	if r := collect(t.Context(), p, request("more")); r.err != nil || !strings.Contains(r.text, "<attempt_completion>") {
		t.Fatalf("past the script: %q, %v", r.text, r.err)
	}
	// A hanging response must not keep the server from stopping.
	root := strings.TrimSuffix(base, "/v1")
	resp, err := http.Post(root+"/_script", "application/json", strings.NewReader(`{"turns": [{"text": "x", "fault": {"hang": true}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, resp.Body)
	hung := make(chan result, 1)
	go func() { hung <- collect(context.Background(), p, request("hang")) }()
	for len(requestLog(t, root)) < 3 { // wait until the hanging request has arrived
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("ServeFake = %v", err)
	}
	if r := <-hung; r.err == nil {
		t.Errorf("the hung request ended cleanly with %q; want an error when the server stops", r.text)
	}
}

func requestLog(t *testing.T, root string) []llmtest.Request {
	t.Helper()
	resp, err := http.Get(root + "/_requests")
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, resp.Body)
	var reqs []llmtest.Request
	if err := json.NewDecoder(resp.Body).Decode(&reqs); err != nil {
		t.Fatal(err)
	}
	return reqs
}
