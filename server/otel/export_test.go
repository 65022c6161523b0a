package otel_test

import (
	"context"
	"log/slog"
	"net"
	"os"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/cairnhq/cairn/core/egress"
	"github.com/cairnhq/cairn/core/telemetry"
	"github.com/cairnhq/cairn/server/internal/nettest"
	"github.com/cairnhq/cairn/server/internal/otlptest"
	"github.com/cairnhq/cairn/server/otel"
)

// noProxy keeps the machine's proxy out of a test's requests to its own collector.
func noProxy(t *testing.T) {
	for _, k := range []string{"HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "NO_PROXY", "no_proxy"} {
		t.Setenv(k, "")
	}
}

// within is a call's span time checked against the test's clock around the call.
type within struct{ from, to time.Time }

func (w within) has(ns uint64) bool {
	return ns >= uint64(w.from.UnixNano()) && ns <= uint64(w.to.UnixNano())
}

// call runs f and returns when it ran.
func call(f func()) within {
	from := time.Now()
	f()
	return within{from, time.Now()}
}

// TestExported: a task's run, a request and a tool call with an approval, through the
// recorder and cairn-helper to an OTLP collector over HTTP and gRPC: the task → request →
// tool spans with their attributes, each starting and ending at the time of the recorder's
// call, the approval as an event, the resource, and the metrics (README "OpenTelemetry",
// docs/settings.md "OpenTelemetry").
func TestExported(t *testing.T) {
	for _, protocol := range []string{"http/protobuf", "grpc"} {
		t.Run(protocol, func(t *testing.T) {
			c := otlptest.New()
			endpoint := c.StartHTTP(t)
			if protocol == "grpc" {
				endpoint = c.StartGRPC(t)
			}
			noProxy(t)
			t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
			t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
			t.Setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
			t.Setenv(otel.ContentEnv, "")
			rec, stop, err := otel.Setup(context.Background(), os.Getenv, "9.9.9", egress.Config{}, slog.New(slog.NewTextHandler(os.Stderr, nil)))
			if err != nil || rec == nil {
				t.Fatalf("Setup: %v, %v", rec, err)
			}
			if rec.Content() {
				t.Error("content without CAIRN_OTEL_CONTENT")
			}
			var ctx, rctx, tctx context.Context
			pause := func() { time.Sleep(5 * time.Millisecond) }
			runStart := call(func() { ctx = rec.RunStarted(context.Background(), telemetry.Run{TaskID: "t1", Mode: "act"}) })
			pause()
			reqStart := call(func() { rctx = rec.RequestStarted(ctx, "fake-model") })
			pause()
			reqEnd := call(func() {
				rec.RequestEnded(rctx, telemetry.Request{Model: "fake-model", InputTokens: 10, OutputTokens: 5, CacheRead: 2, Cost: 0.01, Outcome: "ok"})
			})
			pause()
			toolStart := call(func() { tctx = rec.ToolStarted(rctx, "read_file", "notes.txt") })
			rec.Approval(tctx, telemetry.Approval{Category: "read", Verdict: "run", Approved: true})
			pause()
			toolEnd := call(func() { rec.ToolEnded(tctx, "error") })
			runEnd := call(func() { rec.RunEnded(ctx, "failed") })
			// A pipe's delay, or the helper's, does not move the spans' times.
			time.Sleep(50 * time.Millisecond)
			sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			if err := stop(sctx); err != nil {
				t.Fatalf("shutdown: %v", err)
			}

			spans, resources, metrics := c.Spans(), c.Resources(), c.Metrics()
			byName := map[string]*tracepb.Span{}
			for _, s := range spans {
				if byName[s.GetName()] != nil {
					t.Errorf("two %s spans", s.GetName())
				}
				byName[s.GetName()] = s
			}
			task, req, tool := byName["cairn.task"], byName["cairn.request"], byName["cairn.tool"]
			if task == nil || req == nil || tool == nil {
				t.Fatalf("spans: %v", spans)
			}
			if otlptest.Attr(task.GetAttributes(), "cairn.task.id").GetStringValue() != "t1" || otlptest.Attr(task.GetAttributes(), "cairn.mode").GetStringValue() != "act" ||
				otlptest.Attr(task.GetAttributes(), "cairn.task.status").GetStringValue() != "failed" || task.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR {
				t.Errorf("task span: %v %v", task.GetAttributes(), task.GetStatus())
			}
			if len(task.GetParentSpanId()) != 0 || string(req.GetParentSpanId()) != string(task.GetSpanId()) || string(tool.GetParentSpanId()) != string(req.GetSpanId()) {
				t.Error("the spans do not go task → request → tool call")
			}
			for _, s := range []*tracepb.Span{req, tool} {
				if string(s.GetTraceId()) != string(task.GetTraceId()) {
					t.Errorf("%s is not in the task's trace", s.GetName())
				}
			}
			if req.GetKind() != tracepb.Span_SPAN_KIND_CLIENT || otlptest.Attr(req.GetAttributes(), "gen_ai.request.model").GetStringValue() != "fake-model" ||
				otlptest.Attr(req.GetAttributes(), "gen_ai.usage.input_tokens").GetIntValue() != 10 || otlptest.Attr(req.GetAttributes(), "gen_ai.usage.output_tokens").GetIntValue() != 5 ||
				otlptest.Attr(req.GetAttributes(), "cairn.usage.cache_read_tokens").GetIntValue() != 2 || otlptest.Attr(req.GetAttributes(), "cairn.cost.usd").GetDoubleValue() != 0.01 ||
				otlptest.Attr(req.GetAttributes(), "cairn.outcome").GetStringValue() != "ok" {
				t.Errorf("request span: %v %v", req.GetKind(), req.GetAttributes())
			}
			if otlptest.Attr(tool.GetAttributes(), "gen_ai.tool.name").GetStringValue() != "read_file" || otlptest.Attr(tool.GetAttributes(), "cairn.outcome").GetStringValue() != "error" ||
				tool.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR || otlptest.Attr(tool.GetAttributes(), "cairn.tool.argument") != nil {
				t.Errorf("tool span: %v %v", tool.GetAttributes(), tool.GetStatus())
			}
			if ev := tool.GetEvents(); len(ev) != 1 || ev[0].GetName() != "cairn.approval" ||
				otlptest.Attr(ev[0].GetAttributes(), "cairn.approval.verdict").GetStringValue() != "run" || !(within{toolStart.from, toolEnd.from}).has(ev[0].GetTimeUnixNano()) {
				t.Errorf("the approval is not an event of the tool's span: %v", ev)
			}
			for _, c := range []struct {
				what string
				ns   uint64
				at   within
			}{
				{"task start", task.GetStartTimeUnixNano(), runStart}, {"task end", task.GetEndTimeUnixNano(), runEnd},
				{"request start", req.GetStartTimeUnixNano(), reqStart}, {"request end", req.GetEndTimeUnixNano(), reqEnd},
				{"tool start", tool.GetStartTimeUnixNano(), toolStart}, {"tool end", tool.GetEndTimeUnixNano(), toolEnd},
			} {
				if !c.at.has(c.ns) {
					t.Errorf("%s at %d, not within the call [%d, %d]", c.what, c.ns, c.at.from.UnixNano(), c.at.to.UnixNano())
				}
			}
			if len(resources) == 0 || otlptest.Attr(resources[0].GetAttributes(), "service.name").GetStringValue() != "cairn" ||
				otlptest.Attr(resources[0].GetAttributes(), "service.version").GetStringValue() != "9.9.9" {
				t.Errorf("resource: %v", resources)
			}
			for _, m := range []string{"cairn.tokens", "cairn.cost", "cairn.requests", "cairn.request.duration", "cairn.tool.calls", "cairn.tool.duration", "cairn.approvals"} {
				if !slices.Contains(metrics, m) {
					t.Errorf("metric %s not received (got %v)", m, metrics)
				}
			}
		})
	}
}

// oneTask records a task with one request and one tool call with the recorder Setup makes
// from the environment, then shuts it down. Setup's context ends at once: the helper lives
// until the shutdown all the same.
func oneTask(t *testing.T, eg egress.Config) {
	t.Helper()
	setupCtx, cancelSetup := context.WithCancel(context.Background())
	rec, stop, err := otel.Setup(setupCtx, os.Getenv, "test", eg, slog.New(slog.NewTextHandler(os.Stderr, nil)))
	cancelSetup()
	if err != nil || rec == nil {
		t.Fatalf("Setup: %v, %v", rec, err)
	}
	ctx := rec.RunStarted(context.Background(), telemetry.Run{TaskID: "t1", Mode: "act"})
	rctx := rec.RequestStarted(ctx, "m")
	rec.RequestEnded(rctx, telemetry.Request{Model: "m", Outcome: "ok"})
	tctx := rec.ToolStarted(rctx, "execute_command", "make test")
	rec.ToolEnded(tctx, "ok")
	rec.RunEnded(ctx, "completed")
	sctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := stop(sctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

// TestContent: CAIRN_OTEL_CONTENT=true adds the tool's main argument to its span.
func TestContent(t *testing.T) {
	c := otlptest.New()
	noProxy(t)
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", c.StartHTTP(t))
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	t.Setenv(otel.ContentEnv, "true")
	oneTask(t, egress.Config{})
	var found bool
	for _, s := range c.SpansNamed("cairn.tool") {
		found = otlptest.Attr(s.GetAttributes(), "cairn.tool.argument").GetStringValue() == "make test"
	}
	if metrics := c.Metrics(); !found || len(metrics) != 0 {
		t.Errorf("tool argument exported: %v; metrics (switched off): %v", found, metrics)
	}
}

// TestOwnCA: a collector behind TLS whose certificate an organisation's own authority signed
// is reached with the daemon's extra authorities (docs/settings.md, "Networks of
// organisations"): over gRPC, and over HTTP through the daemon's proxy, the only way to it.
func TestOwnCA(t *testing.T) {
	t.Run("grpc", func(t *testing.T) {
		ca := nettest.NewCA(t)
		c := otlptest.New()
		addr := c.StartGRPC(t, grpc.Creds(credentials.NewTLS(ca.ServerTLS(t, "localhost"))))
		_, port, err := net.SplitHostPort(addr[len("http://"):])
		if err != nil {
			t.Fatal(err)
		}
		noProxy(t)
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "https://localhost:"+port)
		t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
		oneTask(t, egress.Config{CAFiles: []string{ca.File}})
		if n := len(c.SpansNamed("cairn.task")); n != 1 {
			t.Errorf("the collector received %d task spans, want 1", n)
		}
	})
	t.Run("http through the proxy", func(t *testing.T) {
		ca := nettest.NewCA(t)
		c := otlptest.New()
		const host = "collector.corp.test"
		port := ca.Serve(t, host, c.Handler(t))
		proxy := nettest.NewProxy(t, host)
		noProxy(t)
		t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "https://"+host+":"+port)
		t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
		oneTask(t, egress.Config{HTTPSProxy: proxy.URL, CAFiles: []string{ca.File}})
		if n := len(c.SpansNamed("cairn.task")); n != 1 {
			t.Errorf("the collector received %d task spans, want 1", n)
		}
		if !slices.Contains(proxy.Targets(), host+":"+port) {
			t.Errorf("the proxy was asked for %v, not the collector", proxy.Targets())
		}
	})
}
