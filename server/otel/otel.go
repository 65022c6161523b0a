// Package otel exports what tasks do as OpenTelemetry traces and metrics over OTLP (README
// "OpenTelemetry"): it implements core/telemetry's Recorder with the official Go SDK and is
// configured only by the standard OTEL_* variables. Nothing is exported unless an OTLP
// endpoint or exporter is configured; OTEL_SDK_DISABLED=true turns it off whatever else says.
package otel

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
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

	"github.com/cairnhq/cairn/core/egress"
	"github.com/cairnhq/cairn/core/telemetry"
)

// ContentEnv names the variable that, set to true, adds the tools' main arguments (command
// lines, paths, URLs) to the tool spans. Prompts, replies and file contents are never exported.
const ContentEnv = "CAIRN_OTEL_CONTENT"

// Recorder is the OpenTelemetry telemetry.Recorder.
type Recorder struct {
	tracer  trace.Tracer
	content bool

	tokens, requests, toolCalls, approvals metric.Int64Counter
	cost                                   metric.Float64Counter
	requestTime, toolTime                  metric.Float64Histogram
}

var _ telemetry.Recorder = (*Recorder)(nil)

// signal is whether one signal is exported, by which protocol, and whether over TLS.
type signal struct {
	on, grpc, secure bool
}

// signalOf reads OTEL_<NAME>_EXPORTER and the endpoint and protocol variables of one signal
// ("TRACES", "METRICS") as the OpenTelemetry specification defines them.
func signalOf(getenv func(string) string, name string) signal {
	v := func(k string) string { return strings.TrimSpace(getenv(k)) }
	if strings.EqualFold(v("OTEL_SDK_DISABLED"), "true") {
		return signal{}
	}
	exporter := strings.ToLower(v("OTEL_" + name + "_EXPORTER"))
	configured := v("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || v("OTEL_EXPORTER_OTLP_"+name+"_ENDPOINT") != ""
	on := exporter == "otlp" || exporter == "" && configured
	protocol := v("OTEL_EXPORTER_OTLP_" + name + "_PROTOCOL")
	if protocol == "" {
		protocol = v("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	endpoint := v("OTEL_EXPORTER_OTLP_" + name + "_ENDPOINT")
	if endpoint == "" {
		endpoint = v("OTEL_EXPORTER_OTLP_ENDPOINT")
	}
	secure := !strings.HasPrefix(endpoint, "http://") && !strings.EqualFold(v("OTEL_EXPORTER_OTLP_INSECURE"), "true")
	return signal{on: on, grpc: protocol == "grpc", secure: secure}
}

// Setup starts the exporters the environment configures and returns the recorder and its
// shutdown (which flushes what is pending). With nothing configured it returns a nil
// recorder and a no-op shutdown: no exporter exists and no connection is ever made. Both
// exporters trust the daemon's extra authorities (core/egress) on an https endpoint; HTTP ones
// go through its proxy, gRPC ones honour HTTPS_PROXY themselves.
func Setup(ctx context.Context, getenv func(string) string, version string, eg egress.Config, log *slog.Logger) (*Recorder, func(context.Context) error, error) {
	traces, metrics := signalOf(getenv, "TRACES"), signalOf(getenv, "METRICS")
	none := func(context.Context) error { return nil }
	if !traces.on && !metrics.on {
		return nil, none, nil
	}
	// The SDK's own failures (a collector that does not answer) go to the daemon's log, never
	// to the terminal of cairn run.
	otelapi.SetErrorHandler(otelapi.ErrorHandlerFunc(func(err error) { log.Warn("OpenTelemetry", "err", err) }))
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", "cairn"),
		attribute.String("service.version", version)), resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, none, err
	}
	tr, err := eg.Transport()
	if err != nil {
		return nil, none, err
	}
	proxy := func(r *http.Request) (*url.URL, error) { return tr.Proxy(r) }
	// The extra authorities are handed to an https endpoint only: the exporter refuses a TLS
	// configuration for a plain http one.
	extraCAs := len(eg.CAFiles) > 0 || len(eg.CADirs) > 0

	var shutdowns []func(context.Context) error
	shutdown := func(ctx context.Context) error {
		var errs []error
		for _, f := range shutdowns {
			errs = append(errs, f(ctx))
		}
		return errors.Join(errs...)
	}
	r := &Recorder{content: strings.EqualFold(strings.TrimSpace(getenv(ContentEnv)), "true")}
	tp := trace.TracerProvider(nil)
	if traces.on {
		var exp sdktrace.SpanExporter
		if traces.grpc {
			var opts []otlptracegrpc.Option
			if extraCAs && traces.secure {
				opts = append(opts, otlptracegrpc.WithTLSCredentials(credentials.NewTLS(tr.TLSClientConfig)))
			}
			exp, err = otlptracegrpc.New(ctx, opts...)
		} else {
			opts := []otlptracehttp.Option{otlptracehttp.WithProxy(proxy)}
			if extraCAs && traces.secure {
				opts = append(opts, otlptracehttp.WithTLSClientConfig(tr.TLSClientConfig))
			}
			exp, err = otlptracehttp.New(ctx, opts...)
		}
		if err != nil {
			return nil, none, err
		}
		p := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		shutdowns = append(shutdowns, p.Shutdown)
		tp = p
	} else {
		tp = tracenoop.NewTracerProvider()
	}
	r.tracer = tp.Tracer("github.com/cairnhq/cairn")

	var mp metric.MeterProvider = metricnoop.NewMeterProvider()
	if metrics.on {
		var exp sdkmetric.Exporter
		if metrics.grpc {
			var opts []otlpmetricgrpc.Option
			if extraCAs && metrics.secure {
				opts = append(opts, otlpmetricgrpc.WithTLSCredentials(credentials.NewTLS(tr.TLSClientConfig)))
			}
			exp, err = otlpmetricgrpc.New(ctx, opts...)
		} else {
			opts := []otlpmetrichttp.Option{otlpmetrichttp.WithProxy(proxy)}
			if extraCAs && metrics.secure {
				opts = append(opts, otlpmetrichttp.WithTLSClientConfig(tr.TLSClientConfig))
			}
			exp, err = otlpmetrichttp.New(ctx, opts...)
		}
		if err != nil {
			return nil, none, errors.Join(err, shutdown(ctx))
		}
		p := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
		shutdowns = append(shutdowns, p.Shutdown)
		mp = p
	}
	if err := r.instruments(mp.Meter("github.com/cairnhq/cairn")); err != nil {
		return nil, none, errors.Join(err, shutdown(ctx))
	}
	return r, shutdown, nil
}

func (r *Recorder) instruments(m metric.Meter) error {
	var errs [7]error
	r.tokens, errs[0] = m.Int64Counter("cairn.tokens", metric.WithUnit("{token}"), metric.WithDescription("model tokens, by type (input, output, cache_read, cache_write) and model"))
	r.cost, errs[1] = m.Float64Counter("cairn.cost", metric.WithUnit("USD"), metric.WithDescription("cost of model requests, by model"))
	r.requests, errs[2] = m.Int64Counter("cairn.requests", metric.WithUnit("{request}"), metric.WithDescription("model requests, by model and outcome"))
	r.requestTime, errs[3] = m.Float64Histogram("cairn.request.duration", metric.WithUnit("s"), metric.WithDescription("model request durations"))
	r.toolCalls, errs[4] = m.Int64Counter("cairn.tool.calls", metric.WithUnit("{call}"), metric.WithDescription("tool calls, by tool and outcome"))
	r.toolTime, errs[5] = m.Float64Histogram("cairn.tool.duration", metric.WithUnit("s"), metric.WithDescription("tool call durations"))
	r.approvals, errs[6] = m.Int64Counter("cairn.approvals", metric.WithUnit("{decision}"), metric.WithDescription("approval decisions, by category, verdict and answer"))
	return errors.Join(errs[:]...)
}

// started is when the request or tool call a context carries began, for the duration
// histograms, and the tool's name for its metrics.
type started struct {
	at   time.Time
	tool string
}

type startedKey struct{}

func withStart(ctx context.Context, tool string) context.Context {
	return context.WithValue(ctx, startedKey{}, started{at: time.Now(), tool: tool})
}

func startOf(ctx context.Context) (float64, string) {
	if s, ok := ctx.Value(startedKey{}).(started); ok {
		return time.Since(s.at).Seconds(), s.tool
	}
	return 0, ""
}

// Content implements telemetry.Recorder.
func (r *Recorder) Content() bool { return r.content }

// RunStarted implements telemetry.Recorder: the "cairn.task" span.
func (r *Recorder) RunStarted(ctx context.Context, run telemetry.Run) context.Context {
	ctx, _ = r.tracer.Start(ctx, "cairn.task", trace.WithAttributes(attribute.String("cairn.task.id", run.TaskID),
		attribute.String("cairn.mode", run.Mode), attribute.Bool("cairn.subagent", run.Sub)))
	return ctx
}

// RunEnded implements telemetry.Recorder.
func (r *Recorder) RunEnded(ctx context.Context, status string) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(attribute.String("cairn.task.status", status))
	if status == "failed" {
		span.SetStatus(codes.Error, status)
	}
	span.End()
}

// RequestStarted implements telemetry.Recorder: the "cairn.request" span.
func (r *Recorder) RequestStarted(ctx context.Context, model string) context.Context {
	ctx, _ = r.tracer.Start(ctx, "cairn.request", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("gen_ai.request.model", model)))
	return withStart(ctx, "")
}

// RequestEnded implements telemetry.Recorder.
func (r *Recorder) RequestEnded(ctx context.Context, q telemetry.Request) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(attribute.Int64("gen_ai.usage.input_tokens", q.InputTokens), attribute.Int64("gen_ai.usage.output_tokens", q.OutputTokens),
		attribute.Int64("cairn.usage.cache_read_tokens", q.CacheRead), attribute.Int64("cairn.usage.cache_write_tokens", q.CacheWrite),
		attribute.Float64("cairn.cost.usd", q.Cost), attribute.String("cairn.outcome", q.Outcome))
	if q.Outcome == "failed" {
		span.SetStatus(codes.Error, q.Outcome)
	}
	span.End()
	// Metrics are recorded without the task's context: a cancelled request still counts.
	mctx := context.WithoutCancel(ctx)
	model := attribute.String("gen_ai.request.model", q.Model)
	for kind, n := range map[string]int64{"input": q.InputTokens, "output": q.OutputTokens, "cache_read": q.CacheRead, "cache_write": q.CacheWrite} {
		if n > 0 {
			r.tokens.Add(mctx, n, metric.WithAttributes(model, attribute.String("cairn.token.type", kind)))
		}
	}
	r.cost.Add(mctx, q.Cost, metric.WithAttributes(model))
	r.requests.Add(mctx, 1, metric.WithAttributes(model, attribute.String("cairn.outcome", q.Outcome)))
	took, _ := startOf(ctx)
	r.requestTime.Record(mctx, took, metric.WithAttributes(model))
}

// ToolStarted implements telemetry.Recorder: the "cairn.tool" span, a child of the request
// span ctx carries (ended already: the child of an ended span is still its child).
func (r *Recorder) ToolStarted(ctx context.Context, name, content string) context.Context {
	attrs := []attribute.KeyValue{attribute.String("gen_ai.tool.name", name)}
	if content != "" && r.content {
		attrs = append(attrs, attribute.String("cairn.tool.argument", content))
	}
	ctx, _ = r.tracer.Start(ctx, "cairn.tool", trace.WithAttributes(attrs...))
	return withStart(ctx, name)
}

// ToolEnded implements telemetry.Recorder.
func (r *Recorder) ToolEnded(ctx context.Context, outcome string) {
	span := trace.SpanFromContext(ctx)
	span.SetAttributes(attribute.String("cairn.outcome", outcome))
	if outcome == "error" {
		span.SetStatus(codes.Error, outcome)
	}
	span.End()
	mctx := context.WithoutCancel(ctx)
	took, tool := startOf(ctx)
	name := attribute.String("gen_ai.tool.name", tool)
	r.toolCalls.Add(mctx, 1, metric.WithAttributes(name, attribute.String("cairn.outcome", outcome)))
	r.toolTime.Record(mctx, took, metric.WithAttributes(name))
}

// Approval implements telemetry.Recorder: an event on the tool's span and a count.
func (r *Recorder) Approval(ctx context.Context, a telemetry.Approval) {
	attrs := []attribute.KeyValue{attribute.String("cairn.approval.category", a.Category),
		attribute.String("cairn.approval.verdict", a.Verdict), attribute.Bool("cairn.approval.approved", a.Approved)}
	trace.SpanFromContext(ctx).AddEvent("cairn.approval", trace.WithAttributes(attrs...))
	r.approvals.Add(context.WithoutCancel(ctx), 1, metric.WithAttributes(attrs...))
}
