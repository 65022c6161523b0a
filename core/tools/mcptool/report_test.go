package mcptool

import (
	"context"
	"encoding/json"
	"fmt"
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

// TestMCPRoundTripReport prints, when CAIRN_BENCH=1 (`make bench`), the p50 of a use_mcp_tool
// call (the tool's whole path: arguments checked against the schema, approval, the hub's call,
// the result rendered) beside a direct mcp-go client call of the same tool on its own server
// process. Target: ≤ 2 ms added at p50.
func TestMCPRoundTripReport(t *testing.T) {
	if os.Getenv("CAIRN_BENCH") == "" {
		t.Skip("set CAIRN_BENCH=1 (make bench) to print the MCP round-trip figure")
	}
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(filepath.Dir(file), "..", "..", "..", "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("the everything MCP server is not installed: run `npm ci` (%v)", err)
	}
	ctx := context.Background()
	const warm, runs = 20, 300

	direct, err := client.NewStdioMCPClient(bin, nil, "stdio")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := direct.Close(); err != nil {
			t.Error(err)
		}
	}()
	init := gomcp.InitializeRequest{}
	init.Params.ProtocolVersion = gomcp.LATEST_LEGACY_PROTOCOL_VERSION
	init.Params.ClientInfo = gomcp.Implementation{Name: "bench", Version: "1"}
	if _, err := direct.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	req := gomcp.CallToolRequest{}
	req.Params.Name = "echo"
	req.Params.Arguments = map[string]any{"message": "bench"}

	path := filepath.Join(t.TempDir(), "mcp_settings.json")
	settings, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": bin, "args": []string{"stdio"}}}})
	if err := os.WriteFile(path, settings, 0o600); err != nil {
		t.Fatal(err)
	}
	hub := mcp.New(mcp.Options{SettingsPath: path, NoWatch: true})
	hub.Start()
	defer func() {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if err := hub.Close(cctx); err != nil {
			t.Error(err)
		}
	}()
	if err := hub.WaitReady(ctx, "everything"); err != nil {
		t.Fatal(err)
	}
	use := All(hub)[0]
	call := tools.Call{Name: UseTool, Params: map[string]string{"server_name": "everything", "tool_name": "echo", "arguments": `{"message":"bench"}`}}

	var viaDirect, viaTool []time.Duration
	for i := range warm + runs {
		begin := time.Now()
		if _, err := direct.CallTool(ctx, req); err != nil {
			t.Fatal(err)
		}
		d := time.Since(begin)
		env := &tools.Env{UI: &toolstest.UI{Answer: tools.Answer{Approved: true, Auto: true}}}
		begin = time.Now()
		res, err := use.Run(ctx, env, call)
		if err != nil || res.IsError {
			t.Fatalf("use_mcp_tool: %v %s", err, res.Text)
		}
		c := time.Since(begin)
		if i >= warm {
			viaDirect, viaTool = append(viaDirect, d), append(viaTool, c)
		}
	}
	pd, pc := median(viaDirect), median(viaTool)
	fmt.Printf("\nMCP — echo on the everything server over stdio, p50 of %d calls each, alternating\n", runs)
	fmt.Printf("%-34s %10v\n", "direct mcp-go client (anchor)", pd)
	fmt.Printf("%-34s %10v\n", "use_mcp_tool through the hub", pc)
	fmt.Printf("%-34s %10v   (target ≤ 2 ms)\n", "added by Cairn", (pc - pd).Round(time.Microsecond))
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2].Round(time.Microsecond)
}
