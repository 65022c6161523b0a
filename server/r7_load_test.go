//go:build unix

package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
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

// R7 load (docs/performance.md): many tasks of one daemon streaming at once to several
// subscribers each. Every 100-byte piece of a reply starts with a marker #tTT-NNNNN# the
// model front stamps as it leaves and each subscriber stamps as it arrives: the difference
// is the chunk's delivery latency, and the markers each subscriber ends with, against the
// daemon's own record, count lost and duplicated messages.

// loadShape is one load run.
type loadShape struct {
	tasks, subscribers int
	replyBytes         int // streamed per task, over all its turns
	tools              int // tool calls per task (one per turn before the completion)
	chunkDelay         time.Duration
}

// loadResult is what a run measured.
type loadResult struct {
	wall           time.Duration
	chunks         int           // marker arrivals measured (tasks × subscribers × markers)
	p50, p99       time.Duration // chunk delivery latency
	lost, dup      int           // messages a subscriber missed or got twice, over all
	badText        int           // messages whose text differs from the daemon's
	goroutines     [2]int        // before, after (settled)
	rssBefore      int           // KB
	rssPeak        int           // KB, sampled during the run
	rssAfter       int           // KB
	markersPerTask int
	lat            latencies
}

// latencies counts delivery latencies in fixed buckets: 10 µs wide up to latFine, 1 ms wide
// from there to latMax (longer ones count in the last). Its size does not grow with the
// arrivals, so a long soak does not measure its own record of them.
type latencies struct {
	n       int
	buckets []uint32
}

const (
	latStep   = 10 * time.Microsecond
	latFine   = 100 * time.Millisecond
	latCoarse = time.Millisecond
	latMax    = time.Minute
)

func (l *latencies) add(d time.Duration) {
	if l.buckets == nil {
		l.buckets = make([]uint32, int(latFine/latStep)+int((latMax-latFine)/latCoarse)+1)
	}
	i := int(max(d, 0) / latStep)
	if d >= latFine {
		i = int(latFine/latStep) + int((min(d, latMax)-latFine)/latCoarse)
	}
	l.buckets[i]++
	l.n++
}

// quantile is the lower edge of the bucket holding the q-th latency (0 when there is none).
func (l *latencies) quantile(q float64) time.Duration {
	rank := uint64(float64(l.n) * q)
	var seen uint64
	for i, c := range l.buckets {
		seen += uint64(c)
		if seen > rank {
			if fine := int(latFine / latStep); i >= fine {
				return latFine + time.Duration(i-fine)*latCoarse
			}
			return time.Duration(i) * latStep
		}
	}
	return 0
}

var markerRE = regexp.MustCompile(`#t(\d+)-(\d+)#`)

const pieceSize = 100

// replyText is one turn's text: n pieces, each a marker padded to pieceSize bytes.
func replyText(task, first, n int) string {
	var b strings.Builder
	for i := range n {
		m := fmt.Sprintf("#t%d-%d# ", task, first+i)
		b.WriteString(m)
		b.WriteString(strings.Repeat("x", pieceSize-len(m)-1))
		b.WriteByte('\n')
	}
	return b.String()
}

// loadModel routes each request to the task's own scripted fake model (found by the task's
// first words in the request) and stamps markers as their bytes are written.
type loadModel struct {
	models  []*llmtest.Server
	scripts []llmtest.Script
	srv     *httptest.Server

	mu   sync.Mutex // guards sent
	sent map[string]time.Time
}

var taskRE = regexp.MustCompile(`R7 task (\d+)\b`)

func newLoadModel(t testing.TB, shape loadShape) *loadModel {
	lm := &loadModel{sent: map[string]time.Time{}}
	perTurn := shape.replyBytes / pieceSize / (shape.tools + 1)
	for task := range shape.tasks {
		var turns []llmtest.Turn
		for turn := range shape.tools + 1 {
			text := replyText(task, turn*perTurn, perTurn)
			if turn < shape.tools {
				text += fmt.Sprintf("<read_file>\n<path>file%d.txt</path>\n</read_file>", turn)
			} else {
				text += "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>"
			}
			turns = append(turns, llmtest.Turn{Text: text, ChunkSize: pieceSize, Delay: llmtest.Duration(shape.chunkDelay)})
		}
		// The fakes run in the test process beside the daemon: they keep no prompts, so the
		// process's memory is the daemon's and the subscribers'.
		lm.scripts = append(lm.scripts, llmtest.Script{Turns: turns, ForgetText: true})
		lm.models = append(lm.models, llmtest.NewHandler(lm.scripts[task]))
	}
	lm.srv = httptest.NewServer(http.HandlerFunc(lm.serve))
	lm.reset()
	t.Cleanup(lm.srv.Close)
	return lm
}

// reset starts every script over on a fresh fake (a fake keeps every request it answered)
// and forgets the stamps, for the next round.
func (lm *loadModel) reset() {
	lm.mu.Lock()
	defer lm.mu.Unlock()
	for i, m := range lm.models {
		m.Close()
		lm.models[i] = llmtest.NewHandler(lm.scripts[i])
	}
	lm.sent = map[string]time.Time{}
}

func (lm *loadModel) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	m := taskRE.FindSubmatch(body)
	if m == nil {
		lm.mu.Lock()
		model := lm.models[0]
		lm.mu.Unlock()
		model.ServeHTTP(w, r) // /v1/models and the like
		return
	}
	n, _ := strconv.Atoi(string(m[1]))
	lm.mu.Lock()
	model := lm.models[n]
	lm.mu.Unlock()
	model.ServeHTTP(&stampWriter{ResponseWriter: w, lm: lm}, r)
}

// stampWriter notes when each marker's bytes leave the model.
type stampWriter struct {
	http.ResponseWriter
	lm *loadModel
}

func (s *stampWriter) Write(p []byte) (int, error) {
	now := time.Now()
	if ms := markerRE.FindAll(p, -1); len(ms) > 0 {
		s.lm.mu.Lock()
		for _, m := range ms {
			if _, ok := s.lm.sent[string(m)]; !ok {
				s.lm.sent[string(m)] = now
			}
		}
		s.lm.mu.Unlock()
	}
	return s.ResponseWriter.Write(p)
}

func (s *stampWriter) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// loadSub is one subscriber: it keeps the messages' text as a UI does and stamps markers as
// they complete in it.
type loadSub struct {
	mu       sync.Mutex // guards the fields below
	msgs     []*subText // by message index; nil until the message arrives
	arrived  map[string]time.Time
	repeated int // markers seen a second time
	done     bool
	err      error
}

// subText is a message's text as a subscriber has it. Deltas are appended in place, not by
// copying the whole text each time, so the subscribers' own garbage does not dominate the
// process's peak.
type subText struct{ b strings.Builder }

func (m *subText) String() string {
	if m == nil {
		return ""
	}
	return m.b.String()
}

func subscribe(ctx context.Context, e *servertest.Env, taskID string) (*loadSub, error) {
	stream, err := e.UI.Subscribe(ctx, &cairnv1.SubscribeRequest{TaskId: taskID})
	if err != nil {
		return nil, err
	}
	s := &loadSub{arrived: map[string]time.Time{}}
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

func (s *loadSub) apply(ev *cairnv1.SubscribeResponse, now time.Time) {
	switch e := ev.Event.(type) {
	case *cairnv1.SubscribeResponse_Snapshot:
		s.msgs = s.msgs[:0]
		for _, m := range e.Snapshot.GetMessages() {
			s.set(m, now)
		}
	case *cairnv1.SubscribeResponse_MessageAdded:
		s.set(e.MessageAdded.GetMessage(), now)
	case *cairnv1.SubscribeResponse_MessageUpdated:
		s.set(e.MessageUpdated.GetMessage(), now)
	case *cairnv1.SubscribeResponse_TextAppended:
		i := int(e.TextAppended.GetIndex())
		if i < len(s.msgs) && s.msgs[i] != nil {
			old := s.msgs[i].b.Len()
			s.msgs[i].b.WriteString(e.TextAppended.GetDelta())
			s.stamp(s.msgs[i].String(), old, now)
		}
	}
}

func (s *loadSub) set(m *cairnv1.Message, now time.Time) {
	i := int(m.GetIndex())
	for len(s.msgs) <= i {
		s.msgs = append(s.msgs, nil)
	}
	old := 0
	if prev := s.msgs[i].String(); prev != "" && strings.HasPrefix(m.GetText(), prev) {
		old = len(prev)
	}
	s.msgs[i] = &subText{}
	s.msgs[i].b.WriteString(m.GetText())
	s.stamp(m.GetText(), old, now)
	if m.GetAsk() == cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT {
		s.done = true
	}
}

// stamp notes the markers that end after byte from of text.
func (s *loadSub) stamp(text string, from int, now time.Time) {
	start := max(0, from-16)
	for _, loc := range markerRE.FindAllStringIndex(text[start:], -1) {
		if start+loc[1] <= from {
			continue
		}
		m := text[start+loc[0] : start+loc[1]]
		if _, ok := s.arrived[m]; ok {
			s.repeated++
			continue
		}
		s.arrived[m] = now
	}
}

func (s *loadSub) finished() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done
}

// daemonMessages is the daemon's own record of a task: a fresh subscription's snapshot.
func daemonMessages(ctx context.Context, e *servertest.Env, taskID string) ([]*cairnv1.Message, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := e.UI.Subscribe(ctx, &cairnv1.SubscribeRequest{TaskId: taskID})
	if err != nil {
		return nil, err
	}
	ev, err := stream.Recv()
	if err != nil {
		return nil, err
	}
	return ev.GetSnapshot().GetMessages(), nil
}

func procRSS() int { return statusKB(os.Getpid(), "VmRSS:") }

// settleGoroutines waits (bounded) for the goroutine count to come back to base.
func settleGoroutines(base int) int {
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		n := runtime.NumGoroutine()
		if n <= base || time.Now().After(deadline) {
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// loadDaemon is a daemon serving load rounds against its fake models.
type loadDaemon struct {
	e      *servertest.Env
	lm     *loadModel
	shape  loadShape
	unused *llmtest.Server
}

func startLoad(t testing.TB, shape loadShape) *loadDaemon {
	t.Helper()
	lm := newLoadModel(t, shape)
	ws := t.TempDir()
	for i := range shape.tools {
		if err := os.WriteFile(fmt.Sprintf("%s/file%d.txt", ws, i), []byte(strings.Repeat("line of the file\n", 40)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The env's own fake model is unused: requests go to the load model.
	unused := llmtest.New(t, llmtest.Script{})
	e := servertest.StartWith(t, unused, servertest.Options{Workspace: ws, Settings: func(s *config.Settings) {
		s.API.BaseURL = lm.srv.URL + "/v1"
		s.AutoApprove.MaxRequests = 0
		s.CheckpointsEnabled = false // the load is streaming and tools, not git
	}})
	return &loadDaemon{e: e, lm: lm, shape: shape, unused: unused}
}

func (d *loadDaemon) stop() {
	d.e.Stop()
	d.unused.Close()
	d.lm.srv.Close()
	d.lm.mu.Lock()
	defer d.lm.mu.Unlock()
	for _, m := range d.lm.models {
		m.Close()
	}
	d.lm.models = nil // what the run leaves behind is the daemon's, not the fakes'
}

// round runs every task of the shape once, concurrently, and adds what it saw to res.
func (d *loadDaemon) round(t testing.TB, res *loadResult) {
	t.Helper()
	e, lm, shape := d.e, d.lm, d.shape
	lm.reset()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	begin := time.Now()
	ids := make([]string, shape.tasks)
	subs := make([][]*loadSub, shape.tasks)
	for i := range shape.tasks {
		ids[i] = e.NewTask(fmt.Sprintf("R7 task %d: stream and read files", i), "", 0)
		for range shape.subscribers {
			s, err := subscribe(ctx, e, ids[i])
			if err != nil {
				t.Fatal(err)
			}
			subs[i] = append(subs[i], s)
		}
	}
	deadline := time.Now().Add(10 * time.Minute)
	for done := false; !done; {
		if time.Now().After(deadline) {
			t.Fatal("the load did not finish within 10 minutes")
		}
		time.Sleep(5 * time.Millisecond)
		res.rssPeak = max(res.rssPeak, procRSS())
		done = true
		for i := range subs {
			for _, s := range subs[i] {
				done = done && s.finished()
			}
		}
	}
	res.wall += time.Since(begin)

	lm.mu.Lock()
	sent := lm.sent
	lm.mu.Unlock()
	for i, id := range ids {
		truth, err := daemonMessages(ctx, e, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range subs[i] {
			s.mu.Lock()
			res.dup += s.repeated
			if len(s.msgs) > len(truth) {
				res.dup += len(s.msgs) - len(truth)
			}
			for j, m := range truth {
				switch {
				case j >= len(s.msgs) || s.msgs[j] == nil:
					res.lost++
				case s.msgs[j].String() != m.GetText():
					res.badText++
				}
			}
			for m, at := range s.arrived {
				if from, ok := sent[m]; ok {
					res.lat.add(at.Sub(from))
				}
			}
			s.mu.Unlock()
		}
		// Done with it, as a UI leaving the task: the daemon closes it (history keeps it).
		if _, err := e.Tasks.ClearTask(ctx, &cairnv1.ClearTaskRequest{TaskId: id}); err != nil {
			t.Fatal(err)
		}
	}
	res.markersPerTask = len(sent) / max(1, shape.tasks)
}

// runLoad starts one daemon, runs one round of shape against it and closes it.
func runLoad(t testing.TB, shape loadShape) loadResult {
	t.Helper()
	var res loadResult
	debug.FreeOSMemory()
	res.goroutines[0] = runtime.NumGoroutine()
	res.rssBefore = procRSS()
	// Everything the run registers for cleanup is released before "after".
	scope := &cleanupScope{TB: t}
	t.Cleanup(scope.close) // when the run fails half way
	d := startLoad(scope, shape)
	d.round(scope, &res)
	d.stop()
	scope.close()
	res.summarize()
	res.goroutines[1] = settleGoroutines(res.goroutines[0])
	debug.FreeOSMemory() // what the heap holds, not what the runtime has yet to give back
	res.rssAfter = procRSS()
	return res
}

// cleanupScope is a test or benchmark whose cleanups (servertest's daemon, the fake models)
// run when close is called rather than when the test ends, so that a run's goroutines and
// memory are gone before what is left is measured. (A benchmark cannot hold a subtest.)
type cleanupScope struct {
	testing.TB
	mu  sync.Mutex // guards fns
	fns []func()
}

// Cleanup registers f to run at close.
func (s *cleanupScope) Cleanup(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fns = append(s.fns, f)
}

// close runs the registered functions, the last first, each once.
func (s *cleanupScope) close() {
	s.mu.Lock()
	fns := s.fns
	s.fns = nil
	s.mu.Unlock()
	for i := len(fns) - 1; i >= 0; i-- {
		fns[i]()
	}
}

// summarize turns the latencies into percentiles.
func (r *loadResult) summarize() {
	r.chunks = r.lat.n
	r.p50, r.p99 = r.lat.quantile(0.5), r.lat.quantile(0.99)
}

// A smaller load in every test run: nothing is lost or duplicated on the way to any
// subscriber, every marker reaches every subscriber, and the goroutines come back.
func TestLoadLosesNothing(t *testing.T) {
	shape := loadShape{tasks: 4, subscribers: 3, replyBytes: 20_000, tools: 3}
	res := runLoad(t, shape)
	if res.lost != 0 || res.dup != 0 || res.badText != 0 {
		t.Fatalf("lost %d, duplicated %d, wrong text %d messages", res.lost, res.dup, res.badText)
	}
	if want := shape.tasks * shape.subscribers * res.markersPerTask; res.chunks != want || res.markersPerTask != shape.replyBytes/pieceSize {
		t.Fatalf("%d marker arrivals (%d markers a task), want %d", res.chunks, res.markersPerTask, want)
	}
	if res.goroutines[1] > res.goroutines[0] {
		t.Fatalf("goroutines %d before, %d after", res.goroutines[0], res.goroutines[1])
	}
}

// BenchmarkR7Load is the R7 load of `make bench`: 20 tasks × 5 subscribers on one daemon, each
// task streaming 200 KB and running 10 tools, unpaced and paced. Unpaced, the fake model writes
// as fast as the daemon reads: the wall time is the throughput and the latency is mostly the
// backlog in the sockets. Paced at 100 bytes every 2 ms per task (50 KB/s, far above a real
// model's rate) the latency is the delivery's own. One iteration is one run on a fresh daemon.
// Metrics of the last run: wall-ms, p50-ms and p99-ms of chunk delivery, arrivals, RSS (daemon
// and clients share this process) before, at its peak and after, and the goroutines before
// and after. A message lost, duplicated or with the wrong text fails the benchmark
// (TestLoadLosesNothing checks the same on a smaller load in `make test`).
func BenchmarkR7Load(b *testing.B) {
	for _, paced := range []bool{false, true} {
		shape := loadShape{tasks: 20, subscribers: 5, replyBytes: 200_000, tools: 10}
		name := "unpaced"
		if paced {
			shape.chunkDelay = 2 * time.Millisecond
			name = "paced"
		}
		b.Run(name, func(b *testing.B) {
			var r loadResult
			for b.Loop() {
				r = runLoad(b, shape)
				if r.lost != 0 || r.dup != 0 || r.badText != 0 {
					b.Fatalf("lost %d, duplicated %d, wrong text %d messages", r.lost, r.dup, r.badText)
				}
			}
			ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
			b.ReportMetric(ms(r.wall), "wall-ms")
			b.ReportMetric(ms(r.p50), "p50-ms")
			b.ReportMetric(ms(r.p99), "p99-ms")
			b.ReportMetric(float64(r.chunks), "arrivals")
			b.ReportMetric(float64(r.rssBefore)/1024, "rss-before-MB")
			b.ReportMetric(float64(r.rssPeak)/1024, "rss-peak-MB")
			b.ReportMetric(float64(r.rssAfter)/1024, "rss-after-MB")
			b.ReportMetric(float64(r.goroutines[0]), "goroutines-before")
			b.ReportMetric(float64(r.goroutines[1]), "goroutines-after")
		})
	}
}

// TestR7Soak runs the load at a lower rate for CAIRN_SOAK (a duration, `make soak`) on one
// daemon and prints its RSS after every round: flat within 10% after the first rounds.
func TestR7Soak(t *testing.T) {
	dur, err := time.ParseDuration(os.Getenv("CAIRN_SOAK"))
	if err != nil {
		t.Skip("set CAIRN_SOAK=30m (make soak) to run the soak")
	}
	shape := loadShape{tasks: 5, subscribers: 3, replyBytes: 50_000, tools: 5, chunkDelay: 2 * time.Millisecond}
	runtime.GC()
	base := runtime.NumGoroutine()
	d := startLoad(t, shape)
	var samples []int
	var total loadResult
	begin := time.Now()
	for round := 1; time.Since(begin) < dur; round++ {
		d.round(t, &total)
		debug.FreeOSMemory()
		samples = append(samples, procRSS())
		if round%10 == 0 {
			fmt.Printf("soak: %v, round %d, RSS %.1f MB, goroutines %d\n", time.Since(begin).Round(time.Second),
				round, float64(samples[len(samples)-1])/1024, runtime.NumGoroutine())
		}
	}
	d.stop()
	total.summarize()
	after := settleGoroutines(base)
	// The first tenth of the rounds warms caches and pools; flatness is judged on the rest.
	warm := samples[len(samples)/10:]
	lo, hi := slices.Min(warm), slices.Max(warm)
	fmt.Printf("\nR7 soak — %v, %d rounds of %d tasks × %d subscribers (%d KB, %d tools a task)\n", dur, len(samples),
		shape.tasks, shape.subscribers, shape.replyBytes/1000, shape.tools)
	fmt.Printf("  RSS after warm-up %.1f–%.1f MB (spread %.1f%%; first %.1f MB, last %.1f MB); target within 10%%\n",
		float64(lo)/1024, float64(hi)/1024, 100*float64(hi-lo)/float64(lo), float64(warm[0])/1024, float64(warm[len(warm)-1])/1024)
	fmt.Printf("  chunk delivery p50 %v, p99 %v over %d arrivals; lost %d, duplicated %d, wrong text %d\n",
		total.p50.Round(10*time.Microsecond), total.p99.Round(10*time.Microsecond), total.chunks, total.lost, total.dup, total.badText)
	fmt.Printf("  goroutines %d before, %d after\n", base, after)
	if total.lost != 0 || total.dup != 0 || total.badText != 0 {
		t.Errorf("lost %d, duplicated %d, wrong text %d", total.lost, total.dup, total.badText)
	}
}

// The latency record gives the percentiles a sorted list would, to its bucket width.
func TestLatencyQuantiles(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name     string
		in       []time.Duration
		p50, p99 time.Duration
	}{
		{name: "none"},
		{name: "fine buckets", in: []time.Duration{3 * ms, 1 * ms, 2 * ms, 4 * ms}, p50: 3 * ms, p99: 4 * ms},
		{name: "within a bucket", in: []time.Duration{15 * time.Microsecond, 12 * time.Microsecond}, p50: 10 * time.Microsecond, p99: 10 * time.Microsecond},
		{name: "coarse buckets", in: []time.Duration{150*ms + 300*time.Microsecond, 2 * time.Second, 5 * ms}, p50: 150 * ms, p99: 2 * time.Second},
		{name: "past the ends", in: []time.Duration{2 * time.Minute, -ms, 0}, p50: 0, p99: time.Minute},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var l latencies
			for _, d := range c.in {
				l.add(d)
			}
			if l.n != len(c.in) || l.quantile(0.5) != c.p50 || l.quantile(0.99) != c.p99 {
				t.Fatalf("n %d p50 %v p99 %v, want %d %v %v", l.n, l.quantile(0.5), l.quantile(0.99), len(c.in), c.p50, c.p99)
			}
		})
	}
}
