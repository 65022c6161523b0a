package browser

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv makes the test binary act as a daemon holding a browser session open (see
// TestMain): it launches the URL in the variable, prints "ready" and waits to be killed.
const childEnv = "CAIRN_BROWSER_TEST_CHILD"

func TestMain(m *testing.M) {
	if u := os.Getenv(childEnv); u != "" {
		s := NewSession(Options{})
		if _, err := s.Launch(context.Background(), u); err != nil {
			fmt.Println("launch:", err)
			os.Exit(2)
		}
		fmt.Println("ready")
		select {} // until killed
	}
	os.Exit(m.Run())
}

// TestNoOrphanChromium: closing a session, and killing the process that holds one open,
// both leave no Chromium process behind.
func TestNoOrphanChromium(t *testing.T) {
	needBrowser(t)
	srv := testSite(t)
	before := chromiumAll(t)

	t.Run("close", func(t *testing.T) {
		dir := isolate(t)
		s := NewSession(Options{})
		if _, err := s.Launch(context.Background(), srv.URL+"/console.html"); err != nil {
			t.Fatal(err)
		}
		if n := chromiumUsing(t, dir); n == 0 {
			t.Fatal("no Chromium process found while the session is open: the count is not measuring anything")
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if n := chromiumUsing(t, dir); n != 0 {
			t.Errorf("%d Chromium processes left after Close", n)
		}
	})

	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run("daemon killed with "+sig.String(), func(t *testing.T) {
			dir := isolate(t)
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"="+srv.URL+"/console.html", "TMPDIR="+dir)
			cmd.Stderr = os.Stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(out).ReadString('\n')
			if strings.TrimSpace(line) != "ready" {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("child: %q %v", line, err)
			}
			running := chromiumUsing(t, dir)
			if running == 0 {
				t.Fatal("the child holds no Chromium process: the count is not measuring anything")
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait() // it dies of the signal
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			waitGone(ctx, t, dir)
			t.Logf("%d Chromium processes while the session was open, 0 after %s", running, sig)
		})
	}
	// Other programs on the machine may start or end a Chromium meanwhile, so the machine-wide
	// figure is reported, not asserted; the assertions above count this test's own profiles.
	t.Logf("Chromium processes on the machine: %d before, %d after", before, chromiumAll(t))
}
