// Package exporter is the OpenTelemetry exporter the daemon runs as `cairn-helper otel`
// (core/helper): it reads what server/otel's Recorder writes to the helper's stdin and replays
// it onto the official Go SDK's spans and metrics, exported over OTLP as the OTEL_* variables
// say (README "OpenTelemetry", docs/settings.md "OpenTelemetry"). The SDK and its exporters
// live here, and so only in the helper's executable (docs/performance.md, "P5 — the daemon at
// rest").
package exporter

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"sync"
	"time"

	otelapi "go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc/credentials"

	"github.com/cairnhq/cairn/server/otel"
)

// Main runs the exporter: the first line of stdin is the daemon's otel.Config, each further
// line an otel.Event. At the end of stdin (the daemon's shutdown, or its death) it flushes
// what is pending and returns 0. A first line it cannot read returns 2, exporters it cannot
// build 1; a line it cannot replay is reported on stderr and skipped. The SDK's own failures
// (a collector that does not answer) go to stderr, which the daemon logs.
func Main(args []string, stdin io.Reader, stderr io.Writer) int {
	errw := &lockedWriter{w: stderr}
	if len(args) != 0 {
		errw.say("usage: cairn-helper otel (the daemon's events on stdin)")
		return 2
	}
	// The end of stdin ends the helper, after a flush: an interrupt meant for the daemon's
	// terminal (cairn run's Ctrl-C reaches its whole process group) must not cut that short.
	signal.Ignore(os.Interrupt)
	in := bufio.NewReader(stdin)
	first, err := in.ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		errw.say("cairn-helper otel: reading the configuration:", err)
		return 2
	}
	var cfg otel.Config
	if err := json.Unmarshal(first, &cfg); err != nil {
		errw.say("cairn-helper otel: the configuration line:", err)
		return 2
	}
	ctx := context.Background()
	x, err := build(ctx, cfg, os.Getenv, errw)
	if err != nil {
		errw.say("cairn-helper otel:", err)
		return 1
	}
	status := 0
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 {
			var e otel.Event
			if jerr := json.Unmarshal(line, &e); jerr != nil {
				errw.say("cairn-helper otel: skipping an event it cannot read:", jerr)
			} else if rerr := x.replay(e); rerr != nil {
				errw.say("cairn-helper otel: skipping an event:", rerr)
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				errw.say("cairn-helper otel: reading the events:", err)
				status = 1
			}
			break
		}
	}
	if err := x.shutdown(ctx); err != nil {
		errw.say("cairn-helper otel: flushing:", err)
		return 1
	}
	return status
}

// lockedWriter serialises writes: the SDK reports from its own goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// say writes a line of a, as fmt.Println does.
func (l *lockedWriter) say(a ...any) {
	_, _ = fmt.Fprintln(l, a...) // stderr is where failures are told: one there has nowhere to go
}

// keptEnded is how many ended spans are remembered as parents: a tool call's span starts
// once its request's span has ended (README "OpenTelemetry"), and right after.
const keptEnded = 4096

// exporter replays the daemon's events onto the SDK.
type exporter struct {
	tracer    trace.Tracer
	shutdowns []func(context.Context) error

	tokens, requests, toolCalls, approvals metric.Int64Counter
	cost                                   metric.Float64Counter
	requestTime, toolTime                  metric.Float64Histogram

	// live are the spans started and not ended, by the daemon's number; ended the last
	// keptEnded ones ended, which ring holds in the order they ended (next is the oldest). A
	// span whose end the daemon dropped (it logs that) stays in live: a few bytes each.
	live, ended map[uint64]*span
	ring        [keptEnded]uint64
	next        int
}

// span is one span of the daemon's: the SDK's, when it started and, for a tool call's, the
// tool (its metrics' attribute).
type span struct {
	s     trace.Span
	start time.Time
	tool  string
}

// build makes the providers and exporters the OTEL_* variables configure (getenv), as
// server/otel.Setup describes.
func build(ctx context.Context, cfg otel.Config, getenv func(string) string, stderr *lockedWriter) (*exporter, error) {
	traces, metrics := otel.Signals(getenv)
	otelapi.SetErrorHandler(otelapi.ErrorHandlerFunc(func(err error) { stderr.say(err) }))
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "cairn"),
		attribute.String("service.version", cfg.Version)), resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, err
	}
	tr, err := cfg.Egress.Transport()
	if err != nil {
		return nil, err
	}
	proxy := func(r *http.Request) (*url.URL, error) { return tr.Proxy(r) }
	// The extra authorities are handed to an https endpoint only: the exporter refuses a TLS
	// configuration for a plain http one.
	extraCAs := len(cfg.Egress.CAFiles) > 0 || len(cfg.Egress.CADirs) > 0

	x := &exporter{live: map[uint64]*span{}, ended: map[uint64]*span{}}
	var tp trace.TracerProvider = tracenoop.NewTracerProvider()
	if traces.On {
		var exp sdktrace.SpanExporter
		if traces.GRPC {
			var opts []otlptracegrpc.Option
			if extraCAs && traces.Secure {
				opts = append(opts, otlptracegrpc.WithTLSCredentials(credentials.NewTLS(tr.TLSClientConfig)))
			}
			exp, err = otlptracegrpc.New(ctx, opts...)
		} else {
			opts := []otlptracehttp.Option{otlptracehttp.WithProxy(proxy)}
			if extraCAs && traces.Secure {
				opts = append(opts, otlptracehttp.WithTLSClientConfig(tr.TLSClientConfig))
			}
			exp, err = otlptracehttp.New(ctx, opts...)
		}
		if err != nil {
			return nil, err
		}
		p := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		x.shutdowns = append(x.shutdowns, p.Shutdown)
		tp = p
	}
	x.tracer = tp.Tracer("github.com/cairnhq/cairn")

	var mp metric.MeterProvider = metricnoop.NewMeterProvider()
	if metrics.On {
		var exp sdkmetric.Exporter
		if metrics.GRPC {
			var opts []otlpmetricgrpc.Option
			if extraCAs && metrics.Secure {
				opts = append(opts, otlpmetricgrpc.WithTLSCredentials(credentials.NewTLS(tr.TLSClientConfig)))
			}
			exp, err = otlpmetricgrpc.New(ctx, opts...)
		} else {
			opts := []otlpmetrichttp.Option{otlpmetrichttp.WithProxy(proxy)}
			if extraCAs && metrics.Secure {
				opts = append(opts, otlpmetrichttp.WithTLSClientConfig(tr.TLSClientConfig))
			}
			exp, err = otlpmetrichttp.New(ctx, opts...)
		}
		if err != nil {
			return nil, errors.Join(err, x.shutdown(ctx))
		}
		p := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
		x.shutdowns = append(x.shutdowns, p.Shutdown)
		mp = p
	}
	if err := x.instruments(mp.Meter("github.com/cairnhq/cairn")); err != nil {
		return nil, errors.Join(err, x.shutdown(ctx))
	}
	return x, nil
}

// shutdown flushes and stops the providers.
func (x *exporter) shutdown(ctx context.Context) error {
	var errs []error
	for _, f := range x.shutdowns {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}

func (x *exporter) instruments(m metric.Meter) error {
	var errs [7]error
	x.tokens, errs[0] = m.Int64Counter("cairn.tokens", metric.WithUnit("{token}"), metric.WithDescription("model tokens, by type (input, output, cache_read, cache_write) and model"))
	x.cost, errs[1] = m.Float64Counter("cairn.cost", metric.WithUnit("USD"), metric.WithDescription("cost of model requests, by model"))
	x.requests, errs[2] = m.Int64Counter("cairn.requests", metric.WithUnit("{request}"), metric.WithDescription("model requests, by model and outcome"))
	x.requestTime, errs[3] = m.Float64Histogram("cairn.request.duration", metric.WithUnit("s"), metric.WithDescription("model request durations"))
	x.toolCalls, errs[4] = m.Int64Counter("cairn.tool.calls", metric.WithUnit("{call}"), metric.WithDescription("tool calls, by tool and outcome"))
	x.toolTime, errs[5] = m.Float64Histogram("cairn.tool.duration", metric.WithUnit("s"), metric.WithDescription("tool call durations"))
	x.approvals, errs[6] = m.Int64Counter("cairn.approvals", metric.WithUnit("{decision}"), metric.WithDescription("approval decisions, by category, verdict and answer"))
	return errors.Join(errs[:]...)
}

// start starts e's span, named name, as a child of e's parent, at e's time.
func (x *exporter) start(e otel.Event, name string, opts ...trace.SpanStartOption) *span {
	ctx := context.Background()
	if p := x.live[e.Parent]; p != nil {
		ctx = trace.ContextWithSpan(ctx, p.s)
	} else if p := x.ended[e.Parent]; p != nil {
		ctx = trace.ContextWithSpan(ctx, p.s)
	}
	at := time.Unix(0, e.Time)
	_, s := x.tracer.Start(ctx, name, append(opts, trace.WithTimestamp(at))...)
	sp := &span{s: s, start: at}
	if e.Span != 0 {
		x.live[e.Span] = sp
	}
	return sp
}

// end is e's span, which ends now: the caller ends the SDK's span. A span the exporter never
// saw start (its context carried none, or the daemon dropped the start) is a no-op one.
func (x *exporter) end(e otel.Event) *span {
	sp := x.live[e.Span]
	if sp == nil {
		return &span{s: trace.SpanFromContext(context.Background()), start: time.Unix(0, e.Time)}
	}
	delete(x.live, e.Span)
	delete(x.ended, x.ring[x.next])
	x.ring[x.next] = e.Span
	x.ended[e.Span] = sp
	x.next = (x.next + 1) % keptEnded
	return sp
}

// replay does what the Recorder call e stands for did in the daemon when the SDK ran there.
func (x *exporter) replay(e otel.Event) error {
	at := time.Unix(0, e.Time)
	// Metrics are recorded whatever became of the task's context: a cancelled request still
	// counts.
	mctx := context.Background()
	switch e.Kind {
	case otel.RunStarted:
		if e.Run == nil {
			return fmt.Errorf("%s without its run", e.Kind)
		}
		x.start(e, "cairn.task", trace.WithAttributes(attribute.String("cairn.task.id", e.Run.TaskID),
			attribute.String("cairn.mode", e.Run.Mode), attribute.Bool("cairn.subagent", e.Run.Sub)))
	case otel.RunEnded:
		s := x.end(e).s
		s.SetAttributes(attribute.String("cairn.task.status", e.Status))
		if e.Status == "failed" {
			s.SetStatus(codes.Error, e.Status)
		}
		s.End(trace.WithTimestamp(at))
	case otel.RequestStarted:
		x.start(e, "cairn.request", trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.String("gen_ai.request.model", e.Model)))
	case otel.RequestEnded:
		q := e.Request
		if q == nil {
			return fmt.Errorf("%s without its request", e.Kind)
		}
		sp := x.end(e)
		sp.s.SetAttributes(attribute.Int64("gen_ai.usage.input_tokens", q.InputTokens), attribute.Int64("gen_ai.usage.output_tokens", q.OutputTokens),
			attribute.Int64("cairn.usage.cache_read_tokens", q.CacheRead), attribute.Int64("cairn.usage.cache_write_tokens", q.CacheWrite),
			attribute.Float64("cairn.cost.usd", q.Cost), attribute.String("cairn.outcome", q.Outcome))
		if q.Outcome == "failed" {
			sp.s.SetStatus(codes.Error, q.Outcome)
		}
		sp.s.End(trace.WithTimestamp(at))
		model := attribute.String("gen_ai.request.model", q.Model)
		for _, t := range []struct {
			kind string
			n    int64
		}{{"input", q.InputTokens}, {"output", q.OutputTokens}, {"cache_read", q.CacheRead}, {"cache_write", q.CacheWrite}} {
			if t.n > 0 {
				x.tokens.Add(mctx, t.n, metric.WithAttributes(model, attribute.String("cairn.token.type", t.kind)))
			}
		}
		x.cost.Add(mctx, q.Cost, metric.WithAttributes(model))
		x.requests.Add(mctx, 1, metric.WithAttributes(model, attribute.String("cairn.outcome", q.Outcome)))
		x.requestTime.Record(mctx, at.Sub(sp.start).Seconds(), metric.WithAttributes(model))
	case otel.ToolStarted:
		attrs := []attribute.KeyValue{attribute.String("gen_ai.tool.name", e.Tool)}
		if e.Content != "" {
			attrs = append(attrs, attribute.String("cairn.tool.argument", e.Content))
		}
		x.start(e, "cairn.tool", trace.WithAttributes(attrs...)).tool = e.Tool
	case otel.ToolEnded:
		sp := x.end(e)
		sp.s.SetAttributes(attribute.String("cairn.outcome", e.Status))
		if e.Status == "error" {
			sp.s.SetStatus(codes.Error, e.Status)
		}
		sp.s.End(trace.WithTimestamp(at))
		name := attribute.String("gen_ai.tool.name", sp.tool)
		x.toolCalls.Add(mctx, 1, metric.WithAttributes(name, attribute.String("cairn.outcome", e.Status)))
		x.toolTime.Record(mctx, at.Sub(sp.start).Seconds(), metric.WithAttributes(name))
	case otel.Approval:
		a := e.Approval
		if a == nil {
			return fmt.Errorf("%s without its decision", e.Kind)
		}
		attrs := []attribute.KeyValue{attribute.String("cairn.approval.category", a.Category),
			attribute.String("cairn.approval.verdict", a.Verdict), attribute.Bool("cairn.approval.approved", a.Approved)}
		if sp := x.live[e.Span]; sp != nil {
			sp.s.AddEvent("cairn.approval", trace.WithAttributes(attrs...), trace.WithTimestamp(at))
		}
		x.approvals.Add(mctx, 1, metric.WithAttributes(attrs...))
	default:
		return fmt.Errorf("unknown kind %q", e.Kind)
	}
	return nil
}
