package mcp

import (
	"strings"
	"testing"
)

func TestParseSettings(t *testing.T) {
	tests := []struct {
		name      string
		json      string
		fileErr   string
		transport map[string]string // server → transport, for good entries
		entryErr  map[string]string // server → error text
	}{
		{name: "empty file", json: "  \n"},
		{name: "not JSON", json: `{"mcpServers": [}`, fileErr: "invalid MCP settings"},
		{name: "mcpServers not an object", json: `{"mcpServers": [1]}`, fileErr: "cannot unmarshal"},
		{name: "inferred and explicit transports", json: `{"mcpServers": {
			"cmd": {"command": "x"},
			"url": {"url": "https://example.com/mcp"},
			"sse": {"type": "sse", "url": "http://127.0.0.1:3001/sse"},
			"both": {"command": "x", "url": "https://ignored"}}}`,
			transport: map[string]string{"cmd": TypeStdio, "url": TypeStreamableHTTP, "sse": TypeSSE, "both": TypeStdio}},
		{name: "bad entries beside a good one", json: `{"mcpServers": {
			"good": {"command": "x", "timeout": 5},
			"noURL": {"type": "streamableHttp"},
			"ftp": {"type": "sse", "url": "ftp://x"},
			"negative": {"command": "x", "timeout": -1},
			"strings": {"command": "x", "args": "not-a-list"}}}`,
			transport: map[string]string{"good": TypeStdio},
			entryErr:  map[string]string{"noURL": `needs "url"`, "ftp": "not an http(s) address", "negative": "at least 1 second", "strings": "cannot unmarshal"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries, err := parseSettings([]byte(tt.json))
			if tt.fileErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.fileErr) {
					t.Fatalf("err = %v, want %q", err, tt.fileErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != len(tt.transport)+len(tt.entryErr) {
				t.Fatalf("%d entries: %+v", len(entries), entries)
			}
			for _, e := range entries {
				if want, ok := tt.entryErr[e.Name]; ok {
					if e.Err == nil || !strings.Contains(e.Err.Error(), want) {
						t.Errorf("%s: %v, want %q", e.Name, e.Err, want)
					}
					continue
				}
				if e.Err != nil || e.Config.transport() != tt.transport[e.Name] {
					t.Errorf("%s: transport %q err %v", e.Name, e.Config.transport(), e.Err)
				}
			}
		})
	}
}

func TestTimeoutAndConnectionChanges(t *testing.T) {
	base := ServerConfig{Command: "x", Args: []string{"a"}}
	if base.timeoutSeconds() != DefaultTimeout {
		t.Errorf("default timeout %d", base.timeoutSeconds())
	}
	for _, tc := range []struct {
		name string
		edit func(*ServerConfig)
		same bool
	}{
		{"autoApprove", func(c *ServerConfig) { c.AutoApprove = []string{"t"} }, true},
		{"timeout", func(c *ServerConfig) { c.Timeout = 9 }, true},
		{"args", func(c *ServerConfig) { c.Args = []string{"b"} }, false},
		{"env", func(c *ServerConfig) { c.Env = map[string]string{"K": "v"} }, false},
		{"cwd", func(c *ServerConfig) { c.Cwd = "/tmp" }, false},
	} {
		c := base
		tc.edit(&c)
		if sameConnection(base, c) != tc.same {
			t.Errorf("%s: sameConnection = %v", tc.name, !tc.same)
		}
	}
}
