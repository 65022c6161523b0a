package mcptool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	gomcp "github.com/mark3labs/mcp-go/mcp"

	"github.com/cairnhq/cairn/core/mcp"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

// BenchmarkMCPRoundTrip is the MCP round-trip figure of `make bench`: the p50 of a
// use_mcp_tool call (the tool's whole path: arguments checked against the schema, approval,
// the hub's call, the result rendered), tool-p50-ms, beside a direct mcp-go client call of
// the same tool on its own server process (the anchor), direct-p50-ms, alternating; added-ms
// is the difference. One iteration is 300 calls each after 20 that warm up. Target: ≤ 2 ms
// added at p50.
func BenchmarkMCPRoundTrip(b *testing.B) {
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(filepath.Dir(file), "..", "..", "..", "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		b.Skipf("the everything MCP server is not installed: run `npm ci` (%v)", err)
	}
	ctx := context.Background()
	const warm, runs = 20, 300

	direct, err := client.NewStdioMCPClient(bin, nil, "stdio")
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		if err := direct.Close(); err != nil {
			b.Error(err)
		}
	}()
	init := gomcp.InitializeRequest{}
	init.Params.ProtocolVersion = gomcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = gomcp.Implementation{Name: "bench", Version: "1"}
	if _, err := direct.Initialize(ctx, init); err != nil {
		b.Fatal(err)
	}
	req := gomcp.CallToolRequest{}
	req.Params.Name = "echo"
	req.Params.Arguments = map[string]any{"message": "bench"}

	path := filepath.Join(b.TempDir(), "mcp_settings.json")
	settings, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": bin, "args": []string{"stdio"}}}})
	if err := os.WriteFile(path, settings, 0o600); err != nil {
		b.Fatal(err)
	}
	hub := mcp.New(mcp.Options{SettingsPath: path, NoWatch: true})
	hub.Start()
	defer func() {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := hub.Close(cctx); err != nil {
			b.Error(err)
		}
	}()
	if err := hub.WaitReady(ctx, "everything"); err != nil {
		b.Fatal(err)
	}
	use := All(hub)[0]
	call := tools.Call{Name: UseTool, Params: map[string]string{"server_name": "everything", "tool_name": "echo", "arguments": `{"message":"bench"}`}}

	var viaDirect, viaTool []time.Duration
	round := func(keep bool) {
		begin := time.Now()
		if _, err := direct.CallTool(ctx, req); err != nil {
			b.Fatal(err)
		}
		d := time.Since(begin)
		env := &tools.Env{UI: &toolstest.UI{Answer: tools.Answer{Approved: true, Auto: true}}}
		begin = time.Now()
		res, err := use.Run(ctx, env, call)
		if err != nil || res.IsError {
			b.Fatalf("use_mcp_tool: %v %s", err, res.Text)
		}
		c := time.Since(begin)
		if keep {
			viaDirect, viaTool = append(viaDirect, d), append(viaTool, c)
		}
	}
	for range warm {
		round(false)
	}
	for b.Loop() {
		for range runs {
			round(true)
		}
	}
	pd, pc := median(viaDirect), median(viaTool)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(pd), "direct-p50-ms")
	b.ReportMetric(ms(pc), "tool-p50-ms")
	b.ReportMetric(ms(pc-pd), "added-ms")
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2].Round(time.Microsecond)
}
