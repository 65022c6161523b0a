package mcp

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"
)

func slowEntry(delay string, timeout int) map[string]any {
	return map[string]any{"command": os.Args[0], "args": []string{"-test.run=^$"}, "timeout": timeout,
		"env": map[string]string{"CAIRN_MCP_TEST_SERVER": "slow", "CAIRN_MCP_TEST_DELAY": delay}}
}

func silentEntry(timeout int) map[string]any {
	return map[string]any{"command": os.Args[0], "args": []string{"-test.run=^$"}, "timeout": timeout,
		"env": map[string]string{"CAIRN_MCP_TEST_SERVER": "silent"}}
}

// WaitConnecting, called right after Start, returns once a server that is slow to start has
// connected with its tools; disabled and unusable entries are not waited for.
func TestWaitConnectingWaitsForASlowServer(t *testing.T) {
	h, _ := startHub(t, map[string]any{
		"slow":   slowEntry("1500ms", 30),
		"off":    map[string]any{"command": "never-run", "disabled": true},
		"broken": map[string]any{"type": "stdio"},
	})
	if s := find(h.Servers(), "slow"); s.Status != StatusConnecting {
		t.Fatalf("the slow server is already %s", s.Status)
	}
	if err := h.WaitConnecting(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := find(h.Servers(), "slow")
	if s.Status != StatusConnected || !hasTool(s, "steps") {
		t.Fatalf("after the wait: %s", describe(h.Servers()))
	}
}

// A server that never answers holds the wait for its own timeout and no longer; once it has
// failed, its retries hold no later wait.
func TestWaitConnectingIsBoundedByTheTimeout(t *testing.T) {
	h, _ := startHub(t, map[string]any{"silent": silentEntry(1)})
	start := time.Now()
	if err := h.WaitConnecting(context.Background()); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 900*time.Millisecond || took > 5*time.Second {
		t.Errorf("the wait for a server with a 1 s timeout took %v", took)
	}
	// A retry in progress: connecting again, with the first attempt's error kept.
	waitState(t, h, "silent retrying", func(ss []Server) bool {
		s := find(ss, "silent")
		return s.Status == StatusConnecting && s.Error != ""
	})
	start = time.Now()
	if err := h.WaitConnecting(context.Background()); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("a retrying server held the wait for %v", took)
	}
}

// The wait ends with its context, however long the servers' timeouts are.
func TestWaitConnectingEndsWithTheContext(t *testing.T) {
	h, _ := startHub(t, map[string]any{"silent": silentEntry(60)})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := h.WaitConnecting(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("the cancelled wait took %v", took)
	}
}

// After a Restart the server is making a first attempt again: the wait covers it.
func TestWaitConnectingAfterRestart(t *testing.T) {
	h, _ := startHub(t, map[string]any{"slow": slowEntry("300ms", 30)})
	waitState(t, h, "slow connected", status("slow", StatusConnected))
	if err := h.Restart("slow"); err != nil {
		t.Fatal(err)
	}
	if err := h.WaitConnecting(context.Background()); err != nil {
		t.Fatal(err)
	}
	if s := find(h.Servers(), "slow"); s.Status != StatusConnected {
		t.Fatalf("after the restart and the wait: %s", describe(h.Servers()))
	}
}
