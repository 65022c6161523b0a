//go:build unix

package server_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"
)

// stampedModel is the fake model behind a handler that notes when each request arrives.
type stampedModel struct {
	llm *llmtest.Server
	srv *httptest.Server

	mu       sync.Mutex // guards arrivals
	arrivals []time.Time
}

func newStampedModel(t testing.TB) *stampedModel {
	end := llmtest.Turn{Text: "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>"}
	m := &stampedModel{llm: llmtest.New(t, llmtest.Script{OnEnd: &end})}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			m.mu.Lock()
			m.arrivals = append(m.arrivals, time.Now())
			m.mu.Unlock()
		}
		m.llm.ServeHTTP(w, r)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *stampedModel) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.arrivals)
}

// firstRequest starts a task and returns the time from the NewTask call to the arrival of
// its first model request, then waits for the task to finish (its first checkpoint included:
// the completion waits for it) so the next measurement does not share the machine with it.
func (m *stampedModel) firstRequest(t testing.TB, e *servertest.Env, text string) (wall, cpu time.Duration) {
	t.Helper()
	before := m.count()
	cpu0 := selfCPU()
	begin := time.Now()
	id := e.NewTask(text, "", 0)
	defer func() {
		w := e.Watch(id)
		w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
		w.Close()
	}()
	deadline := time.Now().Add(2 * time.Minute)
	for m.count() == before {
		if time.Now().After(deadline) {
			t.Fatal("no model request within 2 minutes")
		}
		time.Sleep(100 * time.Microsecond)
	}
	cpu = selfCPU() - cpu0
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.arrivals[before].Sub(begin), cpu
}

// selfCPU is the CPU time this process (daemon, client and fake model) has used: on a loaded
// machine the wall time mostly measures the wait for a core, the CPU time what the path costs.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// makeWorkspace writes a git repository of n files (100 to a folder) with a rules file, and
// commits it, as a user's checkout would be.
func makeWorkspace(t testing.TB, n int) string {
	t.Helper()
	root := t.TempDir()
	for i := range n {
		dir := filepath.Join(root, "pkg", fmt.Sprintf("d%04d", i/100))
		if i%100 == 0 {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		body := fmt.Sprintf("package d%04d\n\n// File %d of the workspace.\nfunc F%d() int { return %d }\n", i/100, i, i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, ".clinerules"), []byte("Prefer small functions.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkP8 is the P8 figure of `make bench`: NewTask → first byte of the model request on a
// 100,000-file git workspace (environment details, file listing, rules, three file mentions),
// cold (a new data dir: no shadow repository, the daemon's first task) and warm (the next
// tasks of the same daemon), beside a one-file workspace (the anchor) measured the same way.
// One iteration starts 3 daemons on each workspace and runs 1 cold and 5 warm tasks on each.
// Metrics are medians over all iterations: cold-ms, warm-ms, cold-cpu-ms and warm-cpu-ms
// (this process's CPU: daemon, client and fake model) of the big workspace, the same with the
// prefix one- for the anchor, and the ratios x-one-cold and x-one-warm. Targets: ≤ 300 ms
// cold, ≤ 50 ms warm, ≤ 2× the one-file workspace. CAIRN_P8_PROFILE=FILE writes a CPU profile
// of the first iteration's warm tasks on the big workspace.
func BenchmarkP8(b *testing.B) {
	files := 100_000
	const runs, warmRuns = 3, 5
	big := makeWorkspace(b, files)
	small := makeWorkspace(b, 1)
	text := func(n int) string {
		s := "Look at these:"
		for i := range min(n, 3) {
			s += fmt.Sprintf(" @/pkg/d%04d/f%d.go", i/100, i)
		}
		return s
	}
	type samples struct{ colds, warms, coldCPU, warmCPU []time.Duration }
	measure := func(f *samples, root string, n int, profile string) {
		for range runs {
			m := newStampedModel(b)
			e := servertest.StartWith(b, m.llm, servertest.Options{Workspace: root, Settings: func(s *config.Settings) {
				s.API.BaseURL = m.srv.URL + "/v1"
			}})
			w, c := m.firstRequest(b, e, text(n))
			f.colds, f.coldCPU = append(f.colds, w), append(f.coldCPU, c)
			if profile != "" {
				pf, err := os.Create(profile)
				if err != nil {
					b.Fatal(err)
				}
				if err := pprof.StartCPUProfile(pf); err != nil {
					b.Fatal(err)
				}
			}
			for range warmRuns {
				w, c := m.firstRequest(b, e, text(n))
				f.warms, f.warmCPU = append(f.warms, w), append(f.warmCPU, c)
			}
			if profile != "" {
				pprof.StopCPUProfile()
				profile = ""
			}
			e.Stop()
		}
	}
	profile := os.Getenv("CAIRN_P8_PROFILE")
	var bigS, oneS samples
	for b.Loop() {
		measure(&bigS, big, files, profile)
		profile = ""
		measure(&oneS, small, 1, "")
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	report := func(prefix string, f samples) {
		b.ReportMetric(ms(median(f.colds)), prefix+"cold-ms")
		b.ReportMetric(ms(median(f.warms)), prefix+"warm-ms")
		b.ReportMetric(ms(median(f.coldCPU)), prefix+"cold-cpu-ms")
		b.ReportMetric(ms(median(f.warmCPU)), prefix+"warm-cpu-ms")
	}
	report("", bigS)
	report("one-", oneS)
	ratio := func(a, o []time.Duration) float64 { return float64(median(a)) / float64(max(1, median(o))) }
	b.ReportMetric(ratio(bigS.colds, oneS.colds), "x-one-cold")
	b.ReportMetric(ratio(bigS.warms, oneS.warms), "x-one-warm")
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		b.Logf("load average at the end: %s", strings.TrimSpace(string(load)))
	}
}
