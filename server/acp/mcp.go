package acp

import (
	"encoding/json"

	sdk "github.com/coder/acp-go-sdk"
)

// mcpServersJSON is the session's MCP servers as a document in mcp_settings.json's shape,
// the task override that joins them to the user's servers for that task only (README "Use
// Cairn in Zed, JetBrains, Neovim"); "" when the client gave none. Servers over ACP itself
// (the unstable "acp" transport) are not offered (mcpCapabilities), and skipped.
func mcpServersJSON(servers []sdk.McpServer) (string, error) {
	entries := map[string]map[string]any{}
	for _, s := range servers {
		switch {
		case s.Stdio != nil:
			e := map[string]any{"command": s.Stdio.Command, "args": s.Stdio.Args}
			if len(s.Stdio.Env) > 0 {
				env := map[string]string{}
				for _, v := range s.Stdio.Env {
					env[v.Name] = v.Value
				}
				e["env"] = env
			}
			entries[s.Stdio.Name] = e
		case s.Http != nil:
			entries[s.Http.Name] = remote("streamableHttp", s.Http.Url, s.Http.Headers)
		case s.Sse != nil:
			entries[s.Sse.Name] = remote("sse", s.Sse.Url, s.Sse.Headers)
		}
	}
	if len(entries) == 0 {
		return "", nil
	}
	b, err := json.Marshal(map[string]any{"mcpServers": entries})
	return string(b), err
}

func remote(kind, url string, headers []sdk.HttpHeader) map[string]any {
	e := map[string]any{"type": kind, "url": url}
	if len(headers) > 0 {
		h := map[string]string{}
		for _, v := range headers {
			h[v.Name] = v.Value
		}
		e["headers"] = h
	}
	return e
}
