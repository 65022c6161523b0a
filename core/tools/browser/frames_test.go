package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/tools"
)

// TestGuardCrossSiteFrame checks that requests of a cross-site iframe (which Chromium may run
// in a process of its own) pass through the same check as the page's.
func TestGuardCrossSiteFrame(t *testing.T) {
	needBrowser(t)
	isolate(t)
	var port string
	mux := http.NewServeMux()
	mux.HandleFunc("/outer.html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = fmt.Fprintf(w, `<html><body><iframe src="http://localhost:%s/inner.html"></iframe></body></html>`, port)
	})
	mux.HandleFunc("/inner.html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<html><body><img src="http://169.254.169.254/inner-probe"></body></html>`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	port = srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	s := NewSession(Options{Settle: 2 * time.Second})
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	shot, err := s.Launch(context.Background(), srv.URL+"/outer.html")
	if err != nil {
		t.Fatal(err)
	}
	if !blockedURL(shot.Blocked, "http://169.254.169.254/inner-probe", tools.ErrLinkLocal) {
		t.Errorf("the cross-site frame's request was not checked: blocks %+v", shot.Blocked)
	}
}

// TestGuardWorker checks that a dedicated worker's requests pass through the check too.
func TestGuardWorker(t *testing.T) {
	needBrowser(t)
	isolate(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/w.html", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<html><body><script>new Worker("/w.js")</script></body></html>`))
	})
	mux.HandleFunc("/w.js", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		_, _ = w.Write([]byte(`fetch("http://169.254.169.254/worker-probe").catch(() => {})`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	s := NewSession(Options{Settle: 2 * time.Second})
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	shot, err := s.Launch(context.Background(), srv.URL+"/w.html")
	if err != nil {
		t.Fatal(err)
	}
	if !blockedURL(shot.Blocked, "http://169.254.169.254/worker-probe", tools.ErrLinkLocal) {
		t.Errorf("the worker's request was not checked: blocks %+v", shot.Blocked)
	}
}
