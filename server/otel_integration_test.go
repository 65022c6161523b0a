package server_test

import (
	"cmp"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/protobuf/proto"

	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/egress"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/server/internal/nettest"
	"github.com/cairnhq/cairn/server/servertest"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// collector is an in-process OTLP collector: what it received, decoded.
type collector struct {
	coltrace.UnimplementedTraceServiceServer
	colmetrics.UnimplementedMetricsServiceServer

	// mu guards spans and metrics.
	mu      sync.Mutex
	spans   []*tracepb.Span
	metrics []string // metric names
}

func (c *collector) Export(_ context.Context, req *coltrace.ExportTraceServiceRequest) (*coltrace.ExportTraceServiceResponse, error) {
	c.addTraces(req)
	return &coltrace.ExportTraceServiceResponse{}, nil
}

func (c *collector) addTraces(req *coltrace.ExportTraceServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rs := range req.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			c.spans = append(c.spans, ss.GetSpans()...)
		}
	}
}

func (c *collector) addMetrics(req *colmetrics.ExportMetricsServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, rm := range req.GetResourceMetrics() {
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				c.metrics = append(c.metrics, m.GetName())
			}
		}
	}
}

// metricsServer is the gRPC metrics service (its Export differs from the trace service's).
type metricsServer struct {
	colmetrics.UnimplementedMetricsServiceServer
	c *collector
}

func (m metricsServer) Export(_ context.Context, req *colmetrics.ExportMetricsServiceRequest) (*colmetrics.ExportMetricsServiceResponse, error) {
	m.c.addMetrics(req)
	return &colmetrics.ExportMetricsServiceResponse{}, nil
}

// serveHTTP is OTLP/HTTP with protobuf bodies.
func (c *collector) serveHTTP(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var resp proto.Message
		switch r.URL.Path {
		case "/v1/traces":
			req := &coltrace.ExportTraceServiceRequest{}
			if err := proto.Unmarshal(body, req); err != nil {
				t.Errorf("traces: %v", err)
			}
			c.addTraces(req)
			resp = &coltrace.ExportTraceServiceResponse{}
		case "/v1/metrics":
			req := &colmetrics.ExportMetricsServiceRequest{}
			if err := proto.Unmarshal(body, req); err != nil {
				t.Errorf("metrics: %v", err)
			}
			c.addMetrics(req)
			resp = &colmetrics.ExportMetricsServiceResponse{}
		default:
			http.NotFound(w, r)
			return
		}
		out, err := proto.Marshal(resp)
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out) // the exporter reports a short write itself
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (c *collector) serveGRPC(t *testing.T, opts ...grpc.ServerOption) string {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := grpc.NewServer(opts...)
	coltrace.RegisterTraceServiceServer(g, c)
	colmetrics.RegisterMetricsServiceServer(g, metricsServer{c: c})
	go func() { _ = g.Serve(lis) }() // ends with Stop below
	t.Cleanup(g.Stop)
	return "http://" + lis.Addr().String()
}

func attr(kvs []*commonpb.KeyValue, key string) *commonpb.AnyValue {
	for _, kv := range kvs {
		if kv.GetKey() == key {
			return kv.GetValue()
		}
	}
	return nil
}

// TestOpenTelemetry: a whole task exported over OTLP, HTTP and gRPC, to an in-process
// collector: the task → request → tool spans with tokens, cost and outcomes, the approval as
// an event, and the metrics; and no prompt or file content in any attribute.
func TestOpenTelemetry(t *testing.T) {
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			c := &collector{}
			endpoint := c.serveHTTP(t)
			if protocol == "grpc" {
				endpoint = c.serveGRPC(t)
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

			c.mu.Lock()
			defer c.mu.Unlock()
			byName := map[string][]*tracepb.Span{}
			for _, s := range c.spans {
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
			if got := attr(task.GetAttributes(), "cairn.task.id").GetStringValue(); got != id {
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
						attr(tools[i].GetAttributes(), "gen_ai.tool.name").GetStringValue(), i)
				}
			}
			for _, r := range byName["cairn.request"] {
				if attr(r.GetAttributes(), "gen_ai.usage.input_tokens").GetIntValue() <= 0 || attr(r.GetAttributes(), "gen_ai.request.model").GetStringValue() != "fake-model" {
					t.Errorf("request span without its tokens or model: %v", r.GetAttributes())
				}
				if attr(r.GetAttributes(), "cairn.cost.usd") == nil {
					t.Errorf("request span without its cost")
				}
			}
			var read *tracepb.Span
			for _, s := range byName["cairn.tool"] {
				if attr(s.GetAttributes(), "gen_ai.tool.name").GetStringValue() == "read_file" {
					read = s
				}
			}
			if read == nil || attr(read.GetAttributes(), "cairn.outcome").GetStringValue() != "ok" {
				t.Fatalf("no read_file span with its outcome: %v", byName["cairn.tool"])
			}
			if ev := read.GetEvents(); len(ev) != 1 || ev[0].GetName() != "cairn.approval" ||
				attr(ev[0].GetAttributes(), "cairn.approval.verdict").GetStringValue() != "run" {
				t.Errorf("the read's auto-approval is not an event of its span: %v", ev)
			}
			for _, m := range []string{"cairn.tokens", "cairn.cost", "cairn.requests", "cairn.request.duration", "cairn.tool.calls", "cairn.tool.duration", "cairn.approvals"} {
				if !slices.Contains(c.metrics, m) {
					t.Errorf("metric %s not received (got %v)", m, c.metrics)
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
	c := &collector{}
	addr := c.serveGRPC(t, grpc.Creds(credentials.NewTLS(ca.ServerTLS(t, "localhost"))))
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
	c.mu.Lock()
	defer c.mu.Unlock()
	var tasks int
	for _, sp := range c.spans {
		if sp.GetName() == "cairn.task" {
			tasks++
		}
	}
	if tasks != 1 {
		t.Fatalf("the collector behind the organisation's CA received %d task spans, want 1", tasks)
	}
}
