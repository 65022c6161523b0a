package browser

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// userBrowser starts a Chromium the way a user would for remote debugging and returns its
// DevTools address; the test stops it at the end.
func userBrowser(t *testing.T) (addr string, cmd *exec.Cmd) {
	t.Helper()
	path, err := Find("")
	if err != nil {
		t.Skipf("no browser: %v", err)
	}
	profile := isolate(t)
	args := []string{"--headless", "--remote-debugging-port=0", "--user-data-dir=" + profile, "--no-first-run", "about:blank"}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	cmd = exec.Command(path, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill() // the test's own browser; its exit status is of no interest
		_ = cmd.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		waitGone(ctx, t, profile)
	})
	// Chromium writes the port it picked to DevToolsActivePort in its profile.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		if port, _, ok := strings.Cut(string(b), "\n"); err == nil && ok && port != "" {
			return "http://127.0.0.1:" + port, cmd
		}
		select {
		case <-ctx.Done():
			t.Fatal("the browser did not report its DevTools port")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestRemoteBrowser: a session drives a browser the user started; closing it closes only its
// tab, and the user's browser keeps running.
func TestRemoteBrowser(t *testing.T) {
	needBrowser(t)
	srv := testSite(t)
	addr, cmd := userBrowser(t)
	ctx := context.Background()
	if err := TestConnection(ctx, Options{RemoteURL: addr}); err != nil {
		t.Fatalf("test connection: %v", err)
	}
	s := NewSession(Options{RemoteURL: addr})
	if _, err := s.Launch(ctx, srv.URL+"/click.html"); err != nil {
		t.Fatal(err)
	}
	shot, err := s.Click(ctx, 200, 125)
	if err != nil {
		t.Fatal(err)
	}
	checkShot(t, shot, DefaultWidth, DefaultHeight)
	if !hasLine(shot.Console, "[log] button clicked") {
		t.Errorf("console %q lacks the click", shot.Console)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if cmd.ProcessState != nil || cmd.Process.Signal(syscall.Signal(0)) != nil {
		t.Error("closing the session ended the user's browser")
	}
}
