// Package otel exports what tasks do as OpenTelemetry traces and metrics over OTLP (README
// "OpenTelemetry"), configured only by the standard OTEL_* variables (docs/settings.md,
// "OpenTelemetry"). Nothing is exported unless an OTLP endpoint or exporter is configured;
// OTEL_SDK_DISABLED=true turns it off whatever else says.
//
// This package is the daemon's side and links no OpenTelemetry code: its Recorder implements
// core/telemetry's interface by writing each call, as one line, to `cairn-helper otel`
// (core/helper), which runs the official Go SDK and its exporters (server/otel/exporter). The
// daemon, and every process of its binary, so starts and idles without the SDK's code and
// initialisers (docs/performance.md, "P5 — the daemon at rest"), and the helper runs only
// when an exporter is configured.
package otel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairnhq/cairn/core/egress"
	"github.com/cairnhq/cairn/core/helper"
	"github.com/cairnhq/cairn/core/telemetry"
)

// ContentEnv names the variable that, set to true, adds the tools' main arguments (command
// lines, paths, URLs) to the tool spans. Prompts, replies and file contents are never exported.
const ContentEnv = "CAIRN_OTEL_CONTENT"

// buffered is how many events wait for the helper before new ones are dropped: far more than
// a burst of tool calls makes, little memory.
const buffered = 4096

// Recorder is the OpenTelemetry telemetry.Recorder: it hands each call to the exporter in
// cairn-helper. Its methods never block: an event the helper cannot take (it exited, or it is
// that far behind) is dropped, and the first drop is logged.
type Recorder struct {
	content bool
	log     *slog.Logger

	// lastSpan numbers the spans.
	lastSpan atomic.Uint64
	// events are the lines the writer has still to write; stop is closed by Shutdown.
	events chan Event
	stop   chan struct{}
	// gone is set once the helper can take no more events (it exited, writing failed, or
	// Shutdown began); warned once the first drop has been logged.
	gone, warned atomic.Bool

	// written is closed once the writer has closed the helper's stdin; writeErr is set
	// before.
	written  chan struct{}
	writeErr error
	// exited is closed once the helper has exited; waitErr is set before.
	exited  chan struct{}
	waitErr error
	// kill ends the helper at once.
	kill func() error

	shutOnce sync.Once
	shutErr  error
}

var _ telemetry.Recorder = (*Recorder)(nil)

// Signal is whether one signal (traces, metrics) is exported, by gRPC rather than HTTP, and
// over TLS.
type Signal struct {
	On, GRPC, Secure bool
}

// Signals reads which signals getenv configures (os.Getenv: the exporter reads the same
// variables as the daemon).
func Signals(getenv func(string) string) (traces, metrics Signal) {
	return signalOf(getenv, "TRACES"), signalOf(getenv, "METRICS")
}

// signalOf reads OTEL_<NAME>_EXPORTER and the endpoint and protocol variables of one signal
// ("TRACES", "METRICS") as the OpenTelemetry specification defines them.
func signalOf(getenv func(string) string, name string) Signal {
	v := func(k string) string { return strings.TrimSpace(getenv(k)) }
	if strings.EqualFold(v("OTEL_SDK_DISABLED"), "true") {
		return Signal{}
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
	return Signal{On: on, GRPC: protocol == "grpc", Secure: secure}
}

// Setup starts the exporter the environment configures and returns the recorder and its
// shutdown, which flushes what is pending. With nothing configured it returns a nil recorder
// and a no-op shutdown: the helper is not started and no connection is ever made.
//
// Otherwise it starts `cairn-helper otel` with the daemon's environment (the SDK reads the
// OTEL_* variables itself; getenv decides only whether to start it) and hands it version and
// eg: its exporters trust the daemon's extra authorities on an https endpoint, HTTP ones go
// through its proxy, gRPC ones honour HTTPS_PROXY themselves. What the helper writes on stderr
// (a collector that does not answer) goes to log. The helper lives until the shutdown, however
// short-lived ctx is. A helper that cannot start is an error.
func Setup(ctx context.Context, getenv func(string) string, version string, eg egress.Config, log *slog.Logger) (*Recorder, func(context.Context) error, error) {
	traces, metrics := Signals(getenv)
	none := func(context.Context) error { return nil }
	if !traces.On && !metrics.On {
		return nil, none, nil
	}
	cmd, err := helper.Command(context.WithoutCancel(ctx), "otel")
	if err != nil {
		return nil, none, err
	}
	stderr := &logLines{log: log}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, none, fmt.Errorf("cairn-helper otel: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, none, fmt.Errorf("starting cairn-helper otel: %w", err)
	}
	r := newRecorder(stdin, Config{Version: version, Egress: eg}, strings.EqualFold(strings.TrimSpace(getenv(ContentEnv)), "true"), log)
	r.kill = cmd.Process.Kill
	go func() {
		err := cmd.Wait()
		stderr.flush()
		if err != nil {
			err = fmt.Errorf("cairn-helper otel: %w", err)
		}
		r.exit(err)
	}()
	return r, r.Shutdown, nil
}

// newRecorder is a recorder writing first and then its events to w, from a goroutine of its
// own. Its caller sets kill and calls exit once what reads w has gone.
func newRecorder(w io.WriteCloser, first Config, content bool, log *slog.Logger) *Recorder {
	r := &Recorder{content: content, log: log, events: make(chan Event, buffered), stop: make(chan struct{}),
		written: make(chan struct{}), exited: make(chan struct{}), kill: func() error { return nil }}
	go r.write(w, first)
	return r
}

// write writes first and the events to w until Shutdown or a failed write, then closes w,
// which tells the helper to flush and exit.
func (r *Recorder) write(w io.WriteCloser, first Config) {
	defer close(r.written)
	bw := bufio.NewWriter(w)
	line := func(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			// Not the helper's fault (a cost that is not a number): this event only is lost.
			r.drop(fmt.Sprintf("an event cannot be encoded: %v", err))
			return nil
		}
		_, err = bw.Write(append(b, '\n'))
		return err
	}
	err := line(first)
	if err == nil {
		err = bw.Flush()
	}
	for err == nil {
		select {
		case e := <-r.events:
			if err = line(e); err == nil && len(r.events) == 0 {
				err = bw.Flush()
			}
		case <-r.stop:
			// This goroutine alone receives: what the buffer holds is there to take.
			for err == nil && len(r.events) > 0 {
				err = line(<-r.events)
			}
			if err == nil {
				err = bw.Flush()
			}
			if err != nil {
				err = fmt.Errorf("writing to cairn-helper otel: %w", err)
			}
			r.writeErr = errors.Join(err, w.Close())
			return
		}
	}
	r.gone.Store(true)
	r.writeErr = errors.Join(fmt.Errorf("writing to cairn-helper otel: %w", err), w.Close())
}

// exit records that the helper exited, with err.
func (r *Recorder) exit(err error) {
	r.waitErr = err
	r.gone.Store(true)
	close(r.exited)
}

// Shutdown stops the recorder: what is buffered is written, the helper's stdin closed, and
// the helper, which flushes its exporters then, waited for until ctx ends (then it is
// killed). It returns what went wrong on the way, the helper's exit status included. Later
// calls return the first one's result.
func (r *Recorder) Shutdown(ctx context.Context) error {
	r.shutOnce.Do(func() { r.shutErr = r.shutdown(ctx) })
	return r.shutErr
}

func (r *Recorder) shutdown(ctx context.Context) error {
	r.gone.Store(true)
	close(r.stop)
	var errs []error
	killed := false
	wait := func(done <-chan struct{}) {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		if !killed {
			killed = true
			errs = append(errs, fmt.Errorf("cairn-helper otel did not flush in time: %w", ctx.Err()))
			if err := r.kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
				errs = append(errs, fmt.Errorf("stopping cairn-helper otel: %w", err))
			}
		}
		<-done
	}
	wait(r.written)
	wait(r.exited)
	return errors.Join(append(errs, r.writeErr, r.waitErr)...)
}

// send queues e for the helper, or drops it.
func (r *Recorder) send(e Event) {
	if r.gone.Load() {
		r.drop("cairn-helper otel is not running")
		return
	}
	select {
	case r.events <- e:
	default:
		r.drop("cairn-helper otel is too far behind")
	}
}

// drop logs the first event lost, and why.
func (r *Recorder) drop(why string) {
	if r.warned.CompareAndSwap(false, true) {
		r.log.Warn("OpenTelemetry: dropping events; this one and later ones may be missing from the traces and metrics", "reason", why)
	}
}

// spanKey is the context key of the span a context carries (a uint64).
type spanKey struct{}

func spanOf(ctx context.Context) uint64 {
	id, _ := ctx.Value(spanKey{}).(uint64)
	return id
}

// start sends e as the start of a new span, a child of ctx's, and returns the context that
// carries it.
func (r *Recorder) start(ctx context.Context, e Event) context.Context {
	e.Span, e.Parent, e.Time = r.lastSpan.Add(1), spanOf(ctx), time.Now().UnixNano()
	r.send(e)
	return context.WithValue(ctx, spanKey{}, e.Span)
}

// about sends e about ctx's span.
func (r *Recorder) about(ctx context.Context, e Event) {
	e.Span, e.Time = spanOf(ctx), time.Now().UnixNano()
	r.send(e)
}

// Content implements telemetry.Recorder.
func (r *Recorder) Content() bool { return r.content }

// RunStarted implements telemetry.Recorder: the "cairn.task" span.
func (r *Recorder) RunStarted(ctx context.Context, run telemetry.Run) context.Context {
	return r.start(ctx, Event{Kind: RunStarted, Run: &run})
}

// RunEnded implements telemetry.Recorder.
func (r *Recorder) RunEnded(ctx context.Context, status string) {
	r.about(ctx, Event{Kind: RunEnded, Status: status})
}

// RequestStarted implements telemetry.Recorder: the "cairn.request" span.
func (r *Recorder) RequestStarted(ctx context.Context, model string) context.Context {
	return r.start(ctx, Event{Kind: RequestStarted, Model: model})
}

// RequestEnded implements telemetry.Recorder.
func (r *Recorder) RequestEnded(ctx context.Context, q telemetry.Request) {
	r.about(ctx, Event{Kind: RequestEnded, Request: &q})
}

// ToolStarted implements telemetry.Recorder: the "cairn.tool" span, a child of the request
// span ctx carries (ended already: the child of an ended span is still its child).
func (r *Recorder) ToolStarted(ctx context.Context, name, content string) context.Context {
	if !r.content {
		content = ""
	}
	return r.start(ctx, Event{Kind: ToolStarted, Tool: name, Content: content})
}

// ToolEnded implements telemetry.Recorder.
func (r *Recorder) ToolEnded(ctx context.Context, outcome string) {
	r.about(ctx, Event{Kind: ToolEnded, Status: outcome})
}

// Approval implements telemetry.Recorder: an event on the tool's span and a count.
func (r *Recorder) Approval(ctx context.Context, a telemetry.Approval) {
	r.about(ctx, Event{Kind: Approval, Approval: &a})
}

// logLines logs each line written to it, at Warn: the helper's stderr.
type logLines struct {
	log *slog.Logger
	buf []byte
}

// maxLine is the longest line logLines keeps before logging it anyway.
const maxLine = 64 << 10

func (w *logLines) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.line(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > maxLine {
		w.flush()
	}
	return len(p), nil
}

// flush logs what is left of an unfinished line.
func (w *logLines) flush() {
	w.line(w.buf)
	w.buf = nil
}

func (w *logLines) line(b []byte) {
	if s := strings.TrimSpace(string(b)); s != "" {
		w.log.Warn("OpenTelemetry", "err", s)
	}
}
