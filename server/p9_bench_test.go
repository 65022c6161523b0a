//go:build unix

package server_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"
)

// P9 (docs/performance.md) is measured whole in the code-server E2E (e2e/steps/p9.mjs): a
// chunk leaving the model server → its text in the webview's DOM. Here is the daemon's share of it,
// in one process on one clock: the fake model streams one 7-byte marker (zq0000, zq0001, …) per
// event at a fixed pace, a wrapping ResponseWriter notes when each event is flushed to the socket,
// and a raw gRPC Subscribe client notes when the marker's text completes in the message it keeps,
// applying deltas as a UI does.

var p9MarkerRE = regexp.MustCompile(`zq(\d{4})`)

// p9Marker is marker i with its space: 7 bytes, so that each 7-byte event carries exactly one.
func p9Marker(i int) string { return fmt.Sprintf("zq%04d ", i) }

// p9Script streams n markers, one an event every pace, then completes.
func p9Script(n int, pace time.Duration) llmtest.Script {
	var b strings.Builder
	for i := range n {
		b.WriteString(p9Marker(i))
	}
	b.WriteString("\n\n<attempt_completion>\n<result>Streamed.</result>\n</attempt_completion>")
	return llmtest.Script{Turns: []llmtest.Turn{{Text: b.String(), ChunkSize: len(p9Marker(0)), Delay: llmtest.Duration(pace)}}}
}

// flushModel is a fake model behind a handler that stamps each marker as the event carrying it
// is flushed.
type flushModel struct {
	llm *llmtest.Server
	srv *httptest.Server

	mu      sync.Mutex // guards flushed
	flushed map[int]time.Time
}

func newFlushModel(t testing.TB, script llmtest.Script) *flushModel {
	m := &flushModel{llm: llmtest.New(t, script), flushed: map[int]time.Time{}}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.llm.ServeHTTP(&flushStamper{ResponseWriter: w, m: m}, r)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *flushModel) sent() map[int]time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.flushed)
}

// flushStamper holds what the handler wrote since its last flush and, as the flush hands those
// bytes to the connection, stamps the markers among them. The stamp is taken before the flush:
// taken after, it would also count however long this goroutine waits for a core once the write
// returns, while the daemon may already be reading the bytes on the other core (the arrival
// then came before the stamp). One request's handler uses it from one goroutine.
type flushStamper struct {
	http.ResponseWriter
	m       *flushModel
	pending []byte
}

func (f *flushStamper) Write(p []byte) (int, error) {
	f.pending = append(f.pending, p...)
	return f.ResponseWriter.Write(p)
}

func (f *flushStamper) Flush() {
	if ms := p9MarkerRE.FindAllSubmatch(f.pending, -1); len(ms) > 0 {
		now := time.Now()
		f.m.mu.Lock()
		for _, m := range ms {
			n, _ := strconv.Atoi(string(m[1])) // four digits: the pattern guarantees it
			if _, ok := f.m.flushed[n]; !ok {
				f.m.flushed[n] = now
			}
		}
		f.m.mu.Unlock()
	}
	f.pending = f.pending[:0]
	if fl, ok := f.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

// p9Sub is a Subscribe client keeping each message's text as a UI does. It stamps a marker
// when its text first completes in a message, and counts a marker that completes again.
type p9Sub struct {
	mu       sync.Mutex // guards the fields below
	texts    []string   // by message index
	arrived  map[int]time.Time
	order    []int // markers in the order they arrived
	repeated int
	deltas   int              // TextAppended events received
	cpu      [2]time.Duration // the process's CPU time at the first and the last arrival
	done     bool
	err      error
}

func subscribeP9(ctx context.Context, e *servertest.Env, taskID string) (*p9Sub, error) {
	stream, err := e.UI.Subscribe(ctx, &cairnv1.SubscribeRequest{TaskId: taskID})
	if err != nil {
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	s := &p9Sub{arrived: map[int]time.Time{}}
	go func() {
		for {
			ev, err := stream.Recv()
			now := time.Now()
			s.mu.Lock()
			if err != nil {
				s.err = err
				s.mu.Unlock()
				return
			}
			s.apply(ev, now)
			s.mu.Unlock()
		}
	}()
	return s, nil
}

func (s *p9Sub) apply(ev *cairnv1.SubscribeResponse, now time.Time) {
	switch e := ev.Event.(type) {
	case *cairnv1.SubscribeResponse_Snapshot:
		for _, m := range e.Snapshot.GetMessages() {
			s.set(m, now)
		}
	case *cairnv1.SubscribeResponse_MessageAdded:
		s.set(e.MessageAdded.GetMessage(), now)
	case *cairnv1.SubscribeResponse_MessageUpdated:
		s.set(e.MessageUpdated.GetMessage(), now)
	case *cairnv1.SubscribeResponse_TextAppended:
		s.deltas++
		if i := int(e.TextAppended.GetIndex()); i < len(s.texts) {
			s.replace(i, s.texts[i]+e.TextAppended.GetDelta(), now)
		}
	}
}

func (s *p9Sub) set(m *cairnv1.Message, now time.Time) {
	i := int(m.GetIndex())
	for len(s.texts) <= i {
		s.texts = append(s.texts, "")
	}
	s.replace(i, m.GetText(), now)
	if m.GetAsk() == cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT {
		s.done = true
	}
}

// replace sets message i's text and stamps the markers that end past what it shares with the
// text it had: a marker already complete there is not new.
func (s *p9Sub) replace(i int, text string, now time.Time) {
	old := s.texts[i]
	same := 0
	for same < min(len(old), len(text)) && old[same] == text[same] {
		same++
	}
	start := max(0, same-len("zq0000"))
	for _, loc := range p9MarkerRE.FindAllStringSubmatchIndex(text[start:], -1) {
		if start+loc[1] <= same {
			continue
		}
		n, _ := strconv.Atoi(text[start+loc[2] : start+loc[3]])
		if _, ok := s.arrived[n]; ok {
			s.repeated++
			continue
		}
		s.arrived[n] = now
		s.order = append(s.order, n)
		s.cpu[1] = selfCPU()
		if len(s.order) == 1 {
			s.cpu[0] = s.cpu[1]
		}
	}
	s.texts[i] = text
}

func (s *p9Sub) finished() (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done, s.err
}

// p9Run is what one paced stream measured.
type p9Run struct {
	chunks, sent, seen, missing, repeated, deltas int
	inOrder                                       bool
	latencies                                     []time.Duration // sorted
	cpuPerChunk                                   time.Duration   // first arrival to last
}

// runP9 streams n markers at pace through a fresh daemon to one subscriber and compares the
// model's flush stamps with the subscriber's arrivals.
func runP9(t testing.TB, n int, pace time.Duration) p9Run {
	t.Helper()
	m := newFlushModel(t, p9Script(n, pace))
	e := servertest.StartWith(t, m.llm, servertest.Options{Settings: func(s *config.Settings) {
		s.API.BaseURL = m.srv.URL + "/v1"
		s.CheckpointsEnabled = false // the path measured is the stream's, not git's
	}})
	defer e.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	id := e.NewTask("P9: stream the markers", "", cairnv1.Mode_MODE_ACT)
	sub, err := subscribeP9(ctx, e, id)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		done, err := sub.finished()
		if err != nil {
			t.Fatalf("subscription ended before the completion: %v", err)
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no completion within 2 minutes")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := m.llm.Err(); err != nil {
		t.Fatal(err)
	}

	sent := m.sent()
	sub.mu.Lock()
	defer sub.mu.Unlock()
	r := p9Run{chunks: n, sent: len(sent), seen: len(sub.arrived), repeated: sub.repeated, deltas: sub.deltas}
	if len(sub.order) > 1 {
		r.cpuPerChunk = (sub.cpu[1] - sub.cpu[0]) / time.Duration(len(sub.order)-1)
	}
	r.inOrder = len(sub.order) == n
	for i, got := range sub.order {
		r.inOrder = r.inOrder && got == i
	}
	for i := range n {
		at, ok := sub.arrived[i]
		from, flushed := sent[i]
		switch {
		case !ok:
			r.missing++
		case flushed:
			r.latencies = append(r.latencies, at.Sub(from))
		}
	}
	slices.Sort(r.latencies)
	return r
}

// Every marker of a paced stream reaches a subscriber exactly once and in order, whether the
// model is faster than the Subscribe delta pause (deltas merge) or slower (one delta a chunk).
func TestPacedStreamReachesSubscriberOnce(t *testing.T) {
	cases := []struct {
		name   string
		chunks int
		pace   time.Duration
	}{
		{name: "faster than the delta pause", chunks: 100, pace: time.Millisecond},
		{name: "slower than the delta pause", chunks: 20, pace: 12 * time.Millisecond},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runP9(t, c.chunks, c.pace)
			if r.sent != c.chunks || r.seen != c.chunks || r.missing != 0 || r.repeated != 0 || !r.inOrder {
				t.Fatalf("sent %d, seen %d, missing %d, repeated %d, in order %v; want %d each, none missing or repeated, in order",
					r.sent, r.seen, r.missing, r.repeated, r.inOrder, c.chunks)
			}
		})
	}
}

// quantileOf is the q-th of sorted durations (0 when there are none).
func quantileOf(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(float64(len(sorted))*q))]
}

// BenchmarkP9 is the daemon's share of the P9 figure in `make bench`: 300 markers streamed
// one an event at a 15 ms pace (the E2E's) and at a 10 ms pace, model flush → text at a gRPC
// subscriber. One sub-benchmark a pace; one iteration is one stream through a fresh daemon.
// Metrics over all iterations: p50-ms, p95-ms and max-ms of the latency, deltas (Subscribe
// events that carried text, per stream) and cpu-per-chunk-ms (this process's CPU time —
// daemon, fake model and subscriber — from the first marker's arrival to the last, by
// chunk). The targets are the whole path's, model server → webview DOM, of which this is a
// part: p50 ≤ 16 ms, p95 ≤ 50 ms. A marker missing, repeated or out of order fails the
// benchmark (TestPacedStreamReachesSubscriberOnce checks the same in `make test`).
func BenchmarkP9(b *testing.B) {
	const chunks = 300
	for _, pace := range []time.Duration{15 * time.Millisecond, 10 * time.Millisecond} {
		b.Run(fmt.Sprintf("pace=%v", pace), func(b *testing.B) {
			var latencies []time.Duration
			var deltas int
			var cpu time.Duration
			for b.Loop() {
				r := runP9(b, chunks, pace)
				if r.sent != chunks || r.seen != chunks || r.missing != 0 || r.repeated != 0 || !r.inOrder {
					b.Fatalf("sent %d, seen %d, missing %d, repeated %d, in order %v; want %d each, none missing or repeated, in order",
						r.sent, r.seen, r.missing, r.repeated, r.inOrder, chunks)
				}
				latencies = append(latencies, r.latencies...)
				deltas += r.deltas
				cpu += r.cpuPerChunk
			}
			slices.Sort(latencies)
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(quantileOf(latencies, 0.5)), "p50-ms")
			b.ReportMetric(ms(quantileOf(latencies, 0.95)), "p95-ms")
			b.ReportMetric(ms(quantileOf(latencies, 1)), "max-ms")
			b.ReportMetric(float64(deltas)/float64(b.N), "deltas")
			b.ReportMetric(ms(cpu)/float64(b.N), "cpu-per-chunk-ms")
			if load, err := os.ReadFile("/proc/loadavg"); err == nil {
				b.Logf("load average: %s", strings.Join(strings.Fields(string(load))[:3], " "))
			}
		})
	}
}
