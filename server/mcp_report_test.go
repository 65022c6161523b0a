package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// TestMCPHandshakeReport prints, when CAIRN_BENCH=1 (`make bench`), the daemon's exec →
// handshake time with five MCP servers configured beside none, measured alternately in the
// same run. The hub connects in the background, so the figure must not grow.
func TestMCPHandshakeReport(t *testing.T) {
	if os.Getenv("CAIRN_BENCH") == "" {
		t.Skip("set CAIRN_BENCH=1 (make bench) to print the MCP handshake figure")
	}
	bin := everythingBin(t)
	dir := t.TempDir()
	cairn := filepath.Join(dir, "cairn")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", cairn, "./server/cmd/cairn")
	build.Dir = ".."
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	servers := map[string]any{}
	for i := range 5 {
		servers[fmt.Sprintf("everything%d", i)] = map[string]any{"command": bin, "args": []string{"stdio"}}
	}
	settings, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	start := func(i int, withMCP bool) time.Duration {
		data := filepath.Join(dir, fmt.Sprintf("data%d-%v", i, withMCP))
		if err := os.MkdirAll(data, 0o700); err != nil {
			t.Fatal(err)
		}
		if withMCP {
			if err := os.WriteFile(filepath.Join(data, "mcp_settings.json"), settings, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(cairn, "serve", "--data-dir", data, "--socket", filepath.Join(dir, fmt.Sprintf("s%d-%v.sock", i, withMCP)))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		begin := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
			t.Fatalf("no handshake: %v", err)
		}
		took := time.Since(begin)
		if err := cmd.Process.Signal(os.Interrupt); err != nil {
			t.Fatal(err)
		}
		if err := cmd.Wait(); err != nil {
			t.Logf("cairn serve exited: %v", err)
		}
		return took
	}
	const runs = 31
	var none, five []time.Duration
	for i := range runs {
		none = append(none, start(i, false))
		five = append(five, start(i, true))
	}
	fmt.Printf("\nMCP — cairn serve exec → handshake, %d starts each, alternating\n", runs)
	fmt.Printf("%-30s %10s %10s\n", "", "p50", "mean")
	fmt.Printf("%-30s %10v %10v\n", "no MCP servers", p50(none), mean(none))
	fmt.Printf("%-30s %10v %10v\n", "5 MCP servers (everything)", p50(five), mean(five))
	fmt.Printf("target: 5 servers cost the handshake nothing (they connect in the background)\n")
}

func p50(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2].Round(10 * time.Microsecond)
}

func mean(ds []time.Duration) time.Duration {
	var total time.Duration
	for _, d := range ds {
		total += d
	}
	return (total / time.Duration(len(ds))).Round(10 * time.Microsecond)
}
