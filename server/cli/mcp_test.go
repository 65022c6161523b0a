package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func everything(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(filepath.Dir(file), "..", "..", "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("the everything MCP server is not installed: run `npm ci` in the repository root (%v)", err)
	}
	return bin
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Run(context.Background(), args, IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

// import, list and call, as a user runs them from a shell.
func TestMCPCommands(t *testing.T) {
	bin := everything(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	cline := filepath.Join(dir, "cline_mcp_settings.json")
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": bin, "args": []string{"stdio"}},
		"off":        map[string]any{"command": "nothing", "disabled": true},
	}})
	if err := os.WriteFile(cline, b, 0o600); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		args []string
		code int
		out  []string
		err  string
	}{
		{[]string{"mcp"}, exitUsage, nil, "usage"},
		{[]string{"mcp", "list", "--data-dir", data}, exitOK, []string{"No MCP servers configured"}, ""},
		{[]string{"mcp", "import", "--data-dir", data, cline}, exitOK, []string{"Imported 2 server(s): everything, off."}, ""},
		{[]string{"mcp", "import", "--data-dir", data, cline}, exitOK, []string{"Skipped 2 already configured"}, ""},
		{[]string{"mcp", "import", "--data-dir", data, filepath.Join(dir, "missing.json")}, exitFailure, nil, "no such file"},
		{[]string{"mcp", "list", "--data-dir", data}, exitOK, []string{"everything  connected", "off         disabled", "  echo — Echoes back the input string"}, ""},
		{[]string{"mcp", "list", "--json", "--data-dir", data}, exitOK, []string{`"name": "everything"`, `"status": "connected"`, `"inputSchema"`}, ""},
		{[]string{"mcp", "call", "--data-dir", data, "everything", "echo", `{"message":"shell"}`}, exitOK, []string{"Echo: shell"}, ""},
		{[]string{"mcp", "call", "--data-dir", data, "everything", "get-tiny-image"}, exitOK, []string{"[image image/png,"}, ""},
		{[]string{"mcp", "call", "--data-dir", data, "everything", "echo", `{"msg":1}`}, exitUsage, nil, `missing properties: ["message"]`},
		{[]string{"mcp", "call", "--data-dir", data, "off", "echo"}, exitFailure, nil, "not connected"},
		{[]string{"mcp", "call", "--data-dir", data, "nope", "echo"}, exitFailure, nil, "no such server"},
	}
	for _, st := range steps {
		code, out, errText := runCLI(st.args...)
		if code != st.code || !strings.Contains(errText, st.err) {
			t.Errorf("%v: exit %d (want %d)\nstdout: %s\nstderr: %s", st.args, code, st.code, out, errText)
			continue
		}
		for _, w := range st.out {
			if !strings.Contains(out, w) {
				t.Errorf("%v: stdout lacks %q:\n%s", st.args, w, out)
			}
		}
	}
}
