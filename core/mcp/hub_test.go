package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
)

// The everything server over stdio: tools with text and image results, a listed resource, a
// template resource, prompts, instructions, and argument checking against the schema.
func TestEverythingOverStdio(t *testing.T) {
	bin := npmBin(t, "mcp-server-everything")
	h, _ := startHub(t, map[string]any{"everything": map[string]any{"command": bin, "args": []string{"stdio"}}})
	ss := waitState(t, h, "everything connected", status("everything", StatusConnected))
	exerciseEverything(t, h, find(ss, "everything"))
}

// The everything server in its own Streamable HTTP and SSE modes. The server is started
// before its port is known to be open: the hub's reconnect covers the gap.
func TestEverythingOverHTTP(t *testing.T) {
	bin := npmBin(t, "mcp-server-everything")
	for _, tc := range []struct{ mode, typ, path string }{
		{"streamableHttp", TypeStreamableHTTP, "/mcp"},
		{"sse", TypeSSE, "/sse"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			port := freePort(t)
			// The server itself is a stdio entry of the hub that never speaks MCP on stdio
			// would fail; it runs as a plain child process instead.
			startProcess(t, bin, []string{tc.mode}, "PORT="+port)
			h, _ := startHub(t, map[string]any{"remote": map[string]any{"type": tc.typ,
				"url": "http://127.0.0.1:" + port + tc.path, "headers": map[string]string{"X-Test": "${env:HOME}"}}})
			ss := waitState(t, h, "remote connected", status("remote", StatusConnected))
			exerciseEverything(t, h, find(ss, "remote"))
		})
	}
}

func exerciseEverything(t *testing.T, h *Hub, s Server) {
	t.Helper()
	ctx := context.Background()
	if !hasTool(s, "echo") || !hasTool(s, "get-tiny-image") {
		t.Fatalf("tools: %+v", s.Tools)
	}
	if len(s.Resources) == 0 || len(s.Templates) == 0 || len(s.Prompts) == 0 {
		t.Fatalf("resources %d templates %d prompts %d", len(s.Resources), len(s.Templates), len(s.Prompts))
	}
	if strings.TrimSpace(s.Instructions) == "" {
		t.Error("the server's instructions were not kept")
	}

	res, err := h.CallTool(ctx, s.Name, "echo", json.RawMessage(`{"message":"hello"}`), nil)
	if err != nil || len(res.Content) != 1 || res.Content[0].Text != "Echo: hello" {
		t.Fatalf("echo: %+v %v", res, err)
	}
	img, err := h.CallTool(ctx, s.Name, "get-tiny-image", json.RawMessage(`{}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	var sawImage bool
	for _, c := range img.Content {
		if c.Type == ContentImage && c.MIMEType == "image/png" && bytes.HasPrefix(c.Data, []byte("\x89PNG")) {
			sawImage = true
		}
	}
	if !sawImage {
		t.Fatalf("no PNG in %+v", img.Content)
	}

	for _, tc := range []struct{ name, args, want string }{
		{"missing property", `{}`, "message"},
		{"wrong type", `{"message": 3}`, "string"},
		{"not an object", `[1]`, "object"},
	} {
		err := h.CheckArguments(s.Name, "echo", json.RawMessage(tc.args))
		if !errors.Is(err, ErrBadArguments) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if err := h.CheckArguments(s.Name, "echo", json.RawMessage(`{"message":"ok"}`)); err != nil {
		t.Errorf("valid arguments refused: %v", err)
	}
	if err := h.CheckArguments(s.Name, "no-such-tool", json.RawMessage(`{}`)); !errors.Is(err, ErrUnknownTool) || !strings.Contains(err.Error(), "echo") {
		t.Errorf("unknown tool: %v", err)
	}

	// Progress notifications reach the call that asked for them (the server sends them
	// before its response, on the same stream).
	var mu sync.Mutex
	var steps []Progress
	long, err := h.CallTool(ctx, s.Name, "trigger-long-running-operation", json.RawMessage(`{"duration":0.2,"steps":2}`),
		func(p Progress) {
			mu.Lock()
			defer mu.Unlock()
			steps = append(steps, p)
		})
	mu.Lock()
	if err != nil || long.IsError || len(steps) != 2 || steps[1].Progress != 2 || steps[1].Total != 2 {
		t.Errorf("long-running operation: %+v %v progress %+v", long, err, steps)
	}
	mu.Unlock()

	direct, err := h.ReadResource(ctx, s.Name, s.Resources[0].URI)
	if err != nil || len(direct) == 0 || direct[0].Type != ContentResource {
		t.Fatalf("read %s: %+v %v", s.Resources[0].URI, direct, err)
	}
	tmpl, err := h.ReadResource(ctx, s.Name, "demo://resource/dynamic/text/7")
	if err != nil || len(tmpl) != 1 || !strings.Contains(tmpl[0].Text, "7") {
		t.Fatalf("template resource: %+v %v", tmpl, err)
	}
	text, err := h.GetPrompt(ctx, s.Name, s.Prompts[0].Name, nil)
	if err != nil || text == "" {
		t.Fatalf("prompt %s: %q %v", s.Prompts[0].Name, text, err)
	}
}

// The filesystem server reads a file of the folder it is given.
func TestFilesystemServer(t *testing.T) {
	bin := npmBin(t, "mcp-server-filesystem")
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/note.txt", []byte("pebbles on the path\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h, _ := startHub(t, map[string]any{"fs": map[string]any{"command": bin, "args": []string{dir}}})
	waitState(t, h, "fs connected", status("fs", StatusConnected))
	args, _ := json.Marshal(map[string]string{"path": dir + "/note.txt"})
	if err := h.CheckArguments("fs", "read_text_file", args); err != nil {
		t.Fatal(err)
	}
	res, err := h.CallTool(context.Background(), "fs", "read_text_file", args, nil)
	if err != nil || res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].Text, "pebbles") {
		t.Fatalf("read_text_file: %+v %v", res, err)
	}
}
