package browser

import (
	"bytes"
	"context"
	"embed"
	"image/png"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

//go:embed testdata/site
var siteFS embed.FS

// testSite serves testdata/site, plus /slow.js, which answers after a pause.
func testSite(t testing.TB) *httptest.Server {
	t.Helper()
	sub, err := fs.Sub(siteFS, "testdata/site")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServerFS(sub))
	mux.HandleFunc("/slow.js", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(800 * time.Millisecond):
		case <-r.Context().Done():
			return
		}
		w.Header().Set("Content-Type", "text/javascript")
		_, _ = w.Write([]byte(`console.log("slow script ran"); document.body.insertAdjacentHTML("beforeend", "<p>late</p>");`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// needBrowser skips when this machine has no Chromium (CI installs one).
func needBrowser(t testing.TB) {
	t.Helper()
	if _, err := Find(""); err != nil {
		t.Skipf("no browser on this machine: %v", err)
	}
}

// isolate points the temporary directory, where each browser gets its profile, at a fresh
// folder, so that processes of this test are told apart from any other Chromium by their
// --user-data-dir. It returns that folder. The name is short on purpose: Chromium puts Unix
// sockets in it, and a socket path has a small length limit.
func isolate(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cdp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Error(err)
		}
	})
	t.Setenv("TMPDIR", dir)
	return dir
}

// chromiumUsing counts the running processes whose profile lies under dir.
func chromiumUsing(t testing.TB, dir string) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	want := []byte("--user-data-dir=" + dir)
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if bytes.Contains(cmd, want) {
			n++
		}
	}
	return n
}

// chromiumAll counts every running Chromium process on the machine (for the report).
func chromiumAll(t testing.TB) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return -1
	}
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		exe, err := os.Readlink("/proc/" + e.Name() + "/exe")
		if err == nil && strings.Contains(exe, "chrom") {
			n++
		}
	}
	return n
}

// waitGone waits until no process uses dir (a killed browser's children take a moment to
// notice), failing when ctx ends first.
func waitGone(ctx context.Context, t *testing.T, dir string) {
	t.Helper()
	for chromiumUsing(t, dir) > 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("%d Chromium processes are left running with a profile under %s", chromiumUsing(t, dir), dir)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// checkShot decodes the screenshot and checks its size.
func checkShot(t *testing.T, shot Shot, w, h int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot.PNG))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
		t.Fatalf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), w, h)
	}
}

// pixel returns the colour at x,y of a screenshot as 8-bit RGB.
func pixel(t *testing.T, shot Shot, x, y int) [3]uint8 {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot.PNG))
	if err != nil {
		t.Fatal(err)
	}
	r, g, b, _ := img.At(x, y).RGBA()
	return [3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8)}
}

func hasLine(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}
