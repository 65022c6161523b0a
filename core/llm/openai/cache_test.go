package openai

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
	"github.com/cairnhq/cairn/core/llm"
)

// capture serves an empty finished stream and records each request's body and URL.
func capture(t *testing.T) (*httptest.Server, *[]*http.Request, *[][]byte) {
	t.Helper()
	var reqs []*http.Request
	var bodies [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("reading body: %v", err)
		}
		reqs = append(reqs, r.Clone(r.Context()))
		bodies = append(bodies, b)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, &reqs, &bodies
}

func drain(t *testing.T, p *Provider, req llm.Request) {
	t.Helper()
	s, err := p.Stream(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := s.Recv(); err != nil {
			if err != io.EOF {
				t.Fatalf("Recv: %v", err)
			}
			break
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// cacheRequest has a system prompt, three user turns (the middle one with an image) and two
// replies: the breakpoints go on the system prompt and the last two user turns only.
var cacheRequest = llm.Request{
	Model:  "anthropic/claude-sonnet-4.5",
	System: "You are Cairn. <rules>",
	Messages: []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Content{llm.Text("<task>\nFix the bug\n</task>")}},
		{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("Reading it.")}},
		{Role: llm.RoleUser, Content: []llm.Content{llm.Text("[read_file] Result:"), {Type: llm.ContentImage, ImageMediaType: "image/png", ImageData: "iVBORw0"}, llm.Text("<environment_details>")}},
		{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("Editing.")}},
		{Role: llm.RoleUser, Content: []llm.Content{llm.Text("[replace_in_file] Result:\nok")}},
	},
}

// TestCacheControlGolden pins the exact body sent with cache breakpoints
// (testdata/cache_control.golden.json, rewritten with -update).
func TestCacheControlGolden(t *testing.T) {
	srv, _, bodies := capture(t)
	drain(t, New(Config{BaseURL: srv.URL + "/v1", CacheControl: true}), cacheRequest)
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, (*bodies)[0], "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	golden.File(t, "testdata/cache_control.golden.json", pretty.String())
	if n := strings.Count(pretty.String(), `"cache_control"`); n != 3 {
		t.Errorf("%d breakpoints, want 3 (system and the last two user turns)", n)
	}
}

func TestCacheControlOffSendsPlainBody(t *testing.T) {
	srv, _, bodies := capture(t)
	drain(t, New(Config{BaseURL: srv.URL + "/v1"}), cacheRequest)
	if bytes.Contains((*bodies)[0], []byte("cache_control")) {
		t.Fatalf("breakpoints without the flag:\n%s", (*bodies)[0])
	}
}

func TestWithCacheControlCases(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no system, one user", `{"messages":[{"role":"user","content":"hi"}]}`,
			`{"messages":[{"content":[{"cache_control":{"type":"ephemeral"},"text":"hi","type":"text"}],"role":"user"}]}`},
		{"empty content is left alone", `{"messages":[{"role":"user","content":""}]}`,
			`{"messages":[{"content":"","role":"user"}]}`},
		{"image-only parts are left alone", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}`,
			`{"messages":[{"content":[{"type":"image_url","image_url":{"url":"x"}}],"role":"user"}]}`},
		{"assistant turns are never marked", `{"messages":[{"role":"assistant","content":"a"}]}`,
			`{"messages":[{"content":"a","role":"assistant"}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := withCacheControl([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	if _, err := withCacheControl([]byte(`{"messages":[{"role":"user","content":7}]}`)); err == nil {
		t.Error("numeric content accepted")
	}
}

func TestAzureRoutesByDeployment(t *testing.T) {
	srv, reqs, _ := capture(t)
	p := New(Config{APIKey: "az-key", Azure: &Azure{Endpoint: srv.URL + "/", Deployment: "prod-gpt4o", APIVersion: "2024-10-21"}})
	drain(t, p, llm.Request{Model: "gpt-4o", Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{llm.Text("hi")}}}})
	r := (*reqs)[0]
	if r.URL.Path != "/openai/deployments/prod-gpt4o/chat/completions" || r.URL.Query().Get("api-version") != "2024-10-21" {
		t.Errorf("URL %s", r.URL)
	}
	if r.Header.Get("api-key") != "az-key" || r.Header.Get("Authorization") != "" {
		t.Errorf("auth headers: api-key %q, Authorization %q", r.Header.Get("api-key"), r.Header.Get("Authorization"))
	}
}

// TestCacheUsageReplayed: cache reads and writes as LiteLLM reports them for Claude models
// (the writes at the top level), replayed from a recorded stream; the counts come out
// disjoint, so the input count is what was neither read from nor written to the cache.
func TestCacheUsageReplayed(t *testing.T) {
	p, _ := replay(t, "litellm_cache.sse")
	s, err := p.Stream(t.Context(), cacheRequest)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	}()
	var text string
	var usage *llm.Usage
	for {
		c, err := s.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		text += c.Text
		if c.Usage != nil {
			usage = c.Usage
		}
	}
	want := llm.Usage{InputTokens: 800, OutputTokens: 12, CacheReadTokens: 6000, CacheWriteTokens: 2400}
	if text != "Cached." || usage == nil || !sameUsage(usage, &want) {
		t.Fatalf("text %q usage %+v", text, usage)
	}
	sonnet, _ := llm.LookupModel("claude-sonnet-4-5-20250929")
	// 800 input at $3, 12 output at $15, 6000 cache reads at $0.30, 2400 cache writes at $3.75.
	if got, want := llm.Cost(sonnet, *usage), (800*3+12*15+6000*0.3+2400*3.75)/1e6; math.Abs(got-want) > 1e-12 {
		t.Fatalf("cost %v, want %v", got, want)
	}
}
