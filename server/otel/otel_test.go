package otel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/egress"
	"github.com/cairnhq/cairn/core/helper"
	"github.com/cairnhq/cairn/core/helper/helpertest"
	"github.com/cairnhq/cairn/core/telemetry"
)

// TestMain gives the tests a real cairn-helper, the exporter's process.
func TestMain(m *testing.M) { helpertest.Main(m) }

// TestOffUnlessConfigured: no exporter exists unless an OTLP endpoint or exporter is set, and
// OTEL_SDK_DISABLED wins over both (README "OpenTelemetry").
func TestOffUnlessConfigured(t *testing.T) {
	for _, c := range []struct {
		name                   string
		env                    map[string]string
		traces, metrics, grpcT bool
	}{
		{"nothing", nil, false, false, false},
		{"unrelated variables", map[string]string{"OTEL_SERVICE_NAME": "x", "OTEL_RESOURCE_ATTRIBUTES": "a=b"}, false, false, false},
		{"one endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, true, true, false},
		{"traces only", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, true, false, false},
		{"an exporter switched off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_METRICS_EXPORTER": "none"}, true, false, false},
		{"otlp without an endpoint: the default one", map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true, false, false},
		{"grpc", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, true, true, true},
		{"disabled", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, false, false, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			get := func(k string) string { return c.env[k] }
			tr, m := Signals(get)
			if tr.On != c.traces || m.On != c.metrics || tr.GRPC != c.grpcT {
				t.Errorf("traces %+v, metrics %+v", tr, m)
			}
			if !c.traces && !c.metrics {
				rec, stop, err := Setup(context.Background(), get, "test", egress.Config{}, slog.New(slog.DiscardHandler))
				if rec != nil || err != nil || stop(context.Background()) != nil {
					t.Errorf("a recorder without configuration: %v %v", rec, err)
				}
			}
		})
	}
}

// logBuffer is a slog destination tests read.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newLog() (*slog.Logger, *logBuffer) {
	b := &logBuffer{}
	return slog.New(slog.NewTextHandler(b, nil)), b
}

// piped is a recorder writing to a pipe whose other end the test holds, as the helper's stdin.
func piped(t *testing.T, content bool) (*Recorder, *io.PipeReader, *logBuffer) {
	t.Helper()
	log, buf := newLog()
	pr, pw := io.Pipe()
	r := newRecorder(pw, Config{Version: "1.2.3", Egress: egress.Config{HTTPSProxy: "http://proxy:3128", CAFiles: []string{"/etc/ca.pem"}}}, content, log)
	r.kill = func() error {
		pr.CloseWithError(errors.New("killed"))
		go r.exit(errors.New("killed"))
		return nil
	}
	return r, pr, buf
}

// TestEventsRoundTrip: each Recorder call is one line the exporter decodes into what was
// reported: the kind, the span it opens or is about, the parent its context carried and the
// call's own time; the configuration comes first.
func TestEventsRoundTrip(t *testing.T) {
	for _, content := range []bool{false, true} {
		r, pr, _ := piped(t, content)
		lines := make(chan []string, 1)
		go func() {
			var got []string
			sc := bufio.NewScanner(pr)
			for sc.Scan() {
				got = append(got, sc.Text())
			}
			r.exit(sc.Err())
			lines <- got
		}()
		before := time.Now().UnixNano()
		ctx := r.RunStarted(context.Background(), telemetry.Run{TaskID: "t1", Mode: "act", Sub: true})
		rctx := r.RequestStarted(ctx, "m")
		r.RequestEnded(rctx, telemetry.Request{Model: "m", InputTokens: 1, OutputTokens: 2, CacheRead: 3, CacheWrite: 4, Cost: 0.5, Outcome: "ok"})
		tctx := r.ToolStarted(rctx, "execute_command", "ls -l")
		r.Approval(tctx, telemetry.Approval{Category: "command", Verdict: "ask", Approved: true})
		r.ToolEnded(tctx, "ok")
		r.RunEnded(ctx, "completed")
		after := time.Now().UnixNano()
		if err := r.Shutdown(context.Background()); err != nil {
			t.Fatal(err)
		}
		got := <-lines
		if len(got) != 8 {
			t.Fatalf("%d lines, want the configuration and 7 events:\n%s", len(got), strings.Join(got, "\n"))
		}
		var cfg Config
		if err := json.Unmarshal([]byte(got[0]), &cfg); err != nil || cfg.Version != "1.2.3" || cfg.Egress.HTTPSProxy != "http://proxy:3128" || len(cfg.Egress.CAFiles) != 1 {
			t.Errorf("configuration %s: %+v %v", got[0], cfg, err)
		}
		argument := ""
		if content {
			argument = "ls -l"
		}
		want := []Event{
			{Kind: RunStarted, Span: 1, Run: &telemetry.Run{TaskID: "t1", Mode: "act", Sub: true}},
			{Kind: RequestStarted, Span: 2, Parent: 1, Model: "m"},
			{Kind: RequestEnded, Span: 2, Request: &telemetry.Request{Model: "m", InputTokens: 1, OutputTokens: 2, CacheRead: 3, CacheWrite: 4, Cost: 0.5, Outcome: "ok"}},
			{Kind: ToolStarted, Span: 3, Parent: 2, Tool: "execute_command", Content: argument},
			{Kind: Approval, Span: 3, Approval: &telemetry.Approval{Category: "command", Verdict: "ask", Approved: true}},
			{Kind: ToolEnded, Span: 3, Status: "ok"},
			{Kind: RunEnded, Span: 1, Status: "completed"},
		}
		last := before
		for i, line := range got[1:] {
			var e Event
			if err := json.Unmarshal([]byte(line), &e); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			if e.Time < last || e.Time > after {
				t.Errorf("event %d at %d, outside [%d, %d]: not the call's time", i, e.Time, last, after)
			}
			last = e.Time
			e.Time = 0
			if !reflect.DeepEqual(e, want[i]) {
				t.Errorf("event %d: %s\ndecodes to %+v\nwant       %+v", i, line, e, want[i])
			}
			// And back: what the exporter decodes encodes to the same line.
			e.Time = last
			again, err := json.Marshal(e)
			if err != nil || string(again) != line {
				t.Errorf("event %d re-encodes to %s (%v), want %s", i, again, err, line)
			}
		}
	}
}

// TestFullBufferDrops: a helper that reads nothing never blocks the task loop: events beyond
// the buffer are dropped and the first drop is logged once; Shutdown gives up at its deadline
// and says so.
func TestFullBufferDrops(t *testing.T) {
	r, _, log := piped(t, false)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 3 * buffered {
			ctx := r.ToolStarted(context.Background(), "read_file", "x")
			r.ToolEnded(ctx, "ok")
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the recorder blocks on a helper that does not read")
	}
	if n := strings.Count(log.String(), "dropping events"); n != 1 {
		t.Errorf("%d drop warnings, want 1:\n%s", n, log)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := r.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Shutdown of a stuck helper: %v, want its deadline", err)
	}
}

// TestDeadHelper: once the helper has died, events are dropped without blocking or
// panicking, the drop is logged once, and Shutdown reports the helper's end.
func TestDeadHelper(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	log, buf := newLog()
	r, stop, err := Setup(context.Background(), os.Getenv, "test", egress.Config{}, log)
	if err != nil {
		t.Fatal(err)
	}
	r.RunStarted(context.Background(), telemetry.Run{TaskID: "before"})
	if err := r.kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the killed helper was not noticed")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 2 * buffered {
			ctx := r.RunStarted(context.Background(), telemetry.Run{TaskID: "after"})
			r.Approval(ctx, telemetry.Approval{Category: "read"})
			r.RunEnded(ctx, "completed")
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the recorder blocks once its helper is dead")
	}
	if n := strings.Count(buf.String(), "dropping events"); n != 1 {
		t.Errorf("%d drop warnings, want 1:\n%s", n, buf)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := stop(ctx); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Shutdown after the helper was killed: %v, want its end", err)
	}
}

// TestMissingHelper: a helper that cannot start is Setup's error (the daemon logs that nothing
// is exported). CAIRN_HELPER is read once per process, so this runs in a child test process.
func TestMissingHelper(t *testing.T) {
	const child = "CAIRN_OTEL_TEST_MISSING_HELPER"
	if os.Getenv(child) == "1" {
		get := func(k string) string {
			if k == "OTEL_EXPORTER_OTLP_ENDPOINT" {
				return "http://127.0.0.1:1"
			}
			return ""
		}
		rec, stop, err := Setup(context.Background(), get, "test", egress.Config{}, slog.New(slog.DiscardHandler))
		if err == nil || rec != nil {
			t.Fatalf("Setup with a missing helper: %v, %v; want an error", rec, err)
		}
		if err := stop(context.Background()); err != nil {
			t.Errorf("the shutdown of nothing: %v", err)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMissingHelper$", "-test.v")
	cmd.Env = append(os.Environ(), child+"=1", helper.Env+"="+filepath.Join(t.TempDir(), "no-such-helper"))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestMissingHelper") {
		t.Fatalf("%v\n%s", err, out)
	}
}
