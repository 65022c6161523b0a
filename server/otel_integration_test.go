package server_test

import (
	"cmp"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/egress"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/server/internal/nettest"
	"github.com/cairnhq/cairn/server/internal/otlptest"
	"github.com/cairnhq/cairn/server/servertest"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// TestOpenTelemetry: a whole task exported over OTLP, HTTP and gRPC, to an in-process
// collector: the task → request → tool spans with tokens, cost and outcomes, the approval as
// an event, and the metrics; and no prompt or file content in any attribute.
func TestOpenTelemetry(t *testing.T) {
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			c := otlptest.New()
			endpoint := c.StartHTTP(t)
			if protocol == "grpc" {
				endpoint = c.StartGRPC(t)
			}
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
			t.Setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
			t.Setenv("HTTPS_PROXY", "")
			t.Setenv("HTTP_PROXY", "")
			const secret = "the-file-content-must-not-leave"
			e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
				{Text: "<read_file>\n<path>notes.txt</path>\n</read_file>"},
				{Text: complete},
			}}, servertest.Options{Settings: func(s *config.Settings) { s.BrowserEnabled = false }})
			if err := os.WriteFile(filepath.Join(e.Workspace, "notes.txt"), []byte(secret+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			id := e.NewTask("read my secret-prompt notes", "", act)
			e.Watch(id).UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
			e.Daemon.Stop() // flushes the exporters

			byName := map[string][]*tracepb.Span{}
			for _, s := range c.Spans() {
				byName[s.GetName()] = append(byName[s.GetName()], s)
				for _, kv := range s.GetAttributes() {
					if v := kv.GetValue().GetStringValue(); strings.Contains(v, secret) || strings.Contains(v, "secret-prompt") || strings.Contains(v, "notes.txt") {
						t.Errorf("span %s exports content: %s=%q", s.GetName(), kv.GetKey(), v)
					}
				}
			}
			if len(byName["cairn.task"]) != 1 || len(byName["cairn.request"]) != 2 || len(byName["cairn.tool"]) != 2 {
				t.Fatalf("spans: %d task, %d request, %d tool (want 1, 2, 2: read_file and attempt_completion)",
					len(byName["cairn.task"]), len(byName["cairn.request"]), len(byName["cairn.tool"]))
			}
			task := byName["cairn.task"][0]
			if got := otlptest.Attr(task.GetAttributes(), "cairn.task.id").GetStringValue(); got != id {
				t.Errorf("task span for %q, want %q", got, id)
			}
			for _, s := range append(slices.Clone(byName["cairn.request"]), byName["cairn.tool"]...) {
				if string(s.GetTraceId()) != string(task.GetTraceId()) {
					t.Errorf("%s is not in the task's trace", s.GetName())
				}
				if s.GetEndTimeUnixNano() < s.GetStartTimeUnixNano() {
					t.Errorf("%s has no duration", s.GetName())
				}
			}
			// task → request → tool call: each tool span is a child of the request whose reply
			// held the call (the first request's read_file, the second's attempt_completion).
			requests, tools := byName["cairn.request"], byName["cairn.tool"]
			byStart := func(a, b *tracepb.Span) int { return cmp.Compare(a.GetStartTimeUnixNano(), b.GetStartTimeUnixNano()) }
			slices.SortFunc(requests, byStart)
			slices.SortFunc(tools, byStart)
			for i, r := range requests {
				if string(r.GetParentSpanId()) != string(task.GetSpanId()) {
					t.Errorf("request %d is not a child of the task's span", i)
				}
				if string(tools[i].GetParentSpanId()) != string(r.GetSpanId()) {
					t.Errorf("tool span %q is not a child of request %d, whose reply held the call",
						otlptest.Attr(tools[i].GetAttributes(), "gen_ai.tool.name").GetStringValue(), i)
				}
			}
			for _, r := range byName["cairn.request"] {
				if otlptest.Attr(r.GetAttributes(), "gen_ai.usage.input_tokens").GetIntValue() <= 0 || otlptest.Attr(r.GetAttributes(), "gen_ai.request.model").GetStringValue() != "fake-model" {
					t.Errorf("request span without its tokens or model: %v", r.GetAttributes())
				}
				if otlptest.Attr(r.GetAttributes(), "cairn.cost.usd") == nil {
					t.Errorf("request span without its cost")
				}
			}
			var read *tracepb.Span
			for _, s := range byName["cairn.tool"] {
				if otlptest.Attr(s.GetAttributes(), "gen_ai.tool.name").GetStringValue() == "read_file" {
					read = s
				}
			}
			if read == nil || otlptest.Attr(read.GetAttributes(), "cairn.outcome").GetStringValue() != "ok" {
				t.Fatalf("no read_file span with its outcome: %v", byName["cairn.tool"])
			}
			if ev := read.GetEvents(); len(ev) != 1 || ev[0].GetName() != "cairn.approval" ||
				otlptest.Attr(ev[0].GetAttributes(), "cairn.approval.verdict").GetStringValue() != "run" {
				t.Errorf("the read's auto-approval is not an event of its span: %v", ev)
			}
			metrics := c.Metrics()
			for _, m := range []string{"cairn.tokens", "cairn.cost", "cairn.requests", "cairn.request.duration", "cairn.tool.calls", "cairn.tool.duration", "cairn.approvals"} {
				if !slices.Contains(metrics, m) {
					t.Errorf("metric %s not received (got %v)", m, metrics)
				}
			}
		})
	}
}

// TestOpenTelemetryOverGRPCWithOwnCA: a collector behind TLS whose certificate an
// organisation's own authority signed is reached over gRPC with the daemon's extra authorities
// (docs/settings.md, "Networks of organisations"), as over HTTP.
func TestOpenTelemetryOverGRPCWithOwnCA(t *testing.T) {
	ca := nettest.NewCA(t)
	c := otlptest.New()
	addr := c.StartGRPC(t, grpc.Creds(credentials.NewTLS(ca.ServerTLS(t, "localhost"))))
	_, port, err := net.SplitHostPort(strings.TrimPrefix(addr, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "https://localhost:"+port)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
	t.Setenv("HTTPS_PROXY", "")
	t.Setenv("HTTP_PROXY", "")
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{{Text: complete}}},
		servertest.Options{Settings: func(s *config.Settings) { s.BrowserEnabled = false }, Egress: &egress.Config{CAFiles: []string{ca.File}}})
	id := e.NewTask("say done", "", act)
	e.Watch(id).UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	e.Daemon.Stop() // flushes the exporters
	if tasks := len(c.SpansNamed("cairn.task")); tasks != 1 {
		t.Fatalf("the collector behind the organisation's CA received %d task spans, want 1", tasks)
	}
}
