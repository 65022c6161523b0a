package presets

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
	"time"

	"golang.org/x/tools/txtar"
)

// recorded serves the responses of a txtar case: a section named "METHOD /path" answers that
// request ("POST /api/show <model>" answers Ollama's show request for one model); anything
// else is a 404. It counts the requests served.
type recorded struct {
	bodies map[string][]byte
	// mu guards hits and auth.
	mu   sync.Mutex
	hits int
	auth string
}

func (r *recorded) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	key := req.Method + " " + req.URL.Path
	if req.URL.Path == "/api/show" {
		var body struct {
			Model string `json:"model"`
		}
		if err := json.NewDecoder(req.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		key += " " + body.Model
	}
	r.mu.Lock()
	r.hits++
	r.auth = req.Header.Get("Authorization")
	r.mu.Unlock()
	b, ok := r.bodies[key]
	if !ok {
		http.NotFound(w, req)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func (r *recorded) counts() (int, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits, r.auth
}

func serveCase(t *testing.T, path string) (*txtar.Archive, *recorded, *httptest.Server) {
	t.Helper()
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorded{bodies: map[string][]byte{}}
	for _, f := range ar.Files {
		rec.bodies[f.Name] = f.Data
	}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return ar, rec, srv
}

// baseFor is the test server's URL with the preset's own version path.
func baseFor(t *testing.T, p Preset, srv *httptest.Server) string {
	u, err := url.Parse(p.BaseURL)
	if err != nil {
		t.Fatal(err)
	}
	return srv.URL + u.Path
}

func describe(models []Model) string {
	var b strings.Builder
	for _, m := range models {
		fmt.Fprintf(&b, "%s window=%d max_output=%d ", m.ID, m.ContextWindow, m.MaxOutput)
		if !m.PricesKnown {
			b.WriteString("price unknown\n")
			continue
		}
		fmt.Fprintf(&b, "in=%g out=%g cache_read=%g cache_write=%g\n", m.InputPrice, m.OutputPrice, m.CacheReadPrice, m.CacheWritePrice)
	}
	return b.String()
}

// TestListRecorded replays each provider's recorded catalogue responses (testdata/list, named
// by preset id) through List; the want section is golden (rewritten with -update).
func TestListRecorded(t *testing.T) {
	paths, err := filepath.Glob("testdata/list/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range paths {
		id := strings.TrimSuffix(filepath.Base(path), ".txtar")
		t.Run(id, func(t *testing.T) {
			p := Lookup(id)
			if p.ID != id {
				t.Fatalf("no preset %q", id)
			}
			ar, rec, srv := serveCase(t, path)
			models, err := List(t.Context(), p, Endpoint{BaseURL: baseFor(t, p, srv), APIKey: "sk-test"})
			if err != nil {
				t.Fatal(err)
			}
			got := describe(models)
			if _, auth := rec.counts(); p.Auth == AuthBearer && auth != "Bearer sk-test" {
				t.Errorf("Authorization %q", auth)
			}
			var want *txtar.File
			for i := range ar.Files {
				if ar.Files[i].Name == "want" {
					want = &ar.Files[i]
				}
			}
			if golden.Update() {
				if want == nil {
					ar.Files = append(ar.Files, txtar.File{Name: "want"})
					want = &ar.Files[len(ar.Files)-1]
				}
				want.Data = []byte(got)
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want == nil {
				t.Fatal("no want section: run with -update")
			}
			if got != string(want.Data) {
				t.Errorf("models differ from want:\n%s", got)
			}
		})
	}
}

// TestOpenRouterCatalogueCache: the catalogue is fetched once, kept in the cache dir, used
// while fresh, fetched again after OpenRouterTTL, and a stale copy stands in when the fetch
// fails.
func TestOpenRouterCatalogueCache(t *testing.T) {
	_, rec, srv := serveCase(t, "testdata/list/openrouter.txtar")
	dir := t.TempDir()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	ep := Endpoint{BaseURL: srv.URL + "/api/v1", CacheDir: dir, Now: func() time.Time { return now }}
	p := Lookup("openrouter")
	steps := []struct {
		name     string
		advance  time.Duration
		down     bool
		wantHits int
	}{
		{"first listing fetches", 0, false, 1},
		{"fresh cache is used", time.Hour, false, 1},
		{"expired cache is fetched again", OpenRouterTTL, false, 2},
		{"failed fetch falls back to the stale copy", OpenRouterTTL, true, 3}, // the failed request counts
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		if s.down {
			ep.BaseURL = srv.URL + "/gone"
		}
		models, err := List(t.Context(), p, ep)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if len(models) != 4 {
			t.Fatalf("%s: %d models", s.name, len(models))
		}
		if hits, _ := rec.counts(); hits != s.wantHits {
			t.Fatalf("%s: %d catalogue requests, want %d", s.name, hits, s.wantHits)
		}
	}
	m, ok := CachedOpenRouterModel(dir, "anthropic/claude-sonnet-4.5")
	if !ok || m.Info().CacheReadPrice != 0.3 || m.Info().ContextWindow != 1_000_000 {
		t.Fatalf("cached model %+v (%v)", m, ok)
	}
}

func TestListErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"error":{"message":"bad key"}}`)
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name   string
		preset string
		ep     Endpoint
		want   error
	}{
		{"HTTP error", "openai", Endpoint{BaseURL: srv.URL + "/v1"}, ErrStatus},
		{"no endpoint", Custom, Endpoint{}, ErrNoBaseURL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := List(t.Context(), Lookup(tc.preset), tc.ep)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
		})
	}
	if models, err := List(t.Context(), Lookup("azure"), Endpoint{}); err != nil || models != nil {
		t.Fatalf("azure: %v %v", models, err)
	}
}
