package mcptool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/mcp"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

// fakeHub is one connected server "srv" with an echo tool, and an offline one.
type fakeHub struct {
	result   mcp.CallResult
	callErr  error
	contents []mcp.Content
	progress []mcp.Progress
	auto     bool
	readOnly bool // echo is marked read-only
	calls    []string
}

func (f *fakeHub) Servers() []mcp.Server {
	return []mcp.Server{{Name: "offline", Status: mcp.StatusDisconnected},
		{Name: "srv", Status: mcp.StatusConnected, Tools: []mcp.Tool{{Name: "echo", ReadOnly: f.readOnly}}}}
}

func (f *fakeHub) CheckArguments(server, tool string, args json.RawMessage) error {
	switch {
	case server == "offline":
		return fmt.Errorf("%w: %q is disconnected: exit status 1", mcp.ErrNotConnected, server)
	case server != "srv":
		return fmt.Errorf("%w: %q", mcp.ErrUnknownServer, server)
	case tool != "echo":
		return fmt.Errorf("%w: %q has no tool %q (it has: echo)", mcp.ErrUnknownTool, server, tool)
	case !strings.Contains(string(args), "message"):
		return fmt.Errorf("%w: missing property 'message'", mcp.ErrBadArguments)
	}
	return nil
}

func (f *fakeHub) WaitReady(_ context.Context, server string) error {
	switch server {
	case "srv":
		return nil
	case "offline":
		return fmt.Errorf("%w: %q is disconnected: exit status 1", mcp.ErrNotConnected, server)
	}
	return fmt.Errorf("%w: %q", mcp.ErrUnknownServer, server)
}

func (f *fakeHub) ToolAutoApproved(_, _ string) bool { return f.auto }

func (f *fakeHub) CallTool(_ context.Context, server, tool string, args json.RawMessage, progress func(mcp.Progress)) (mcp.CallResult, error) {
	f.calls = append(f.calls, server+"/"+tool+" "+string(args))
	for _, p := range f.progress {
		progress(p)
	}
	return f.result, f.callErr
}

func (f *fakeHub) ReadResource(_ context.Context, server, uri string) ([]mcp.Content, error) {
	f.calls = append(f.calls, server+" "+uri)
	if server == "offline" {
		return nil, fmt.Errorf("%w: %q is connecting", mcp.ErrNotConnected, server)
	}
	return f.contents, f.callErr
}

func text(s string) mcp.Content { return mcp.Content{Type: mcp.ContentText, Text: s} }

func TestUseMCPTool(t *testing.T) {
	png := []byte("\x89PNG....")
	tests := []struct {
		name     string
		params   map[string]string
		hub      fakeHub
		answer   tools.Answer
		vision   bool
		want     []string // substrings of the result text
		isErr    bool
		rejected bool
		called   bool
		images   int
		says     []msg.Kind
	}{
		{name: "text", params: map[string]string{"server_name": "srv", "tool_name": "echo", "arguments": `{"message":"hi"}`},
			hub: fakeHub{result: mcp.CallResult{Content: []mcp.Content{text("Echo: hi")}}}, answer: tools.Answer{Approved: true},
			want: []string{"Echo: hi"}, called: true, says: []msg.Kind{msg.SayMCPServerResponse}},
		{name: "image to a vision model", vision: true, params: map[string]string{"server_name": "srv", "tool_name": "echo", "arguments": `{"message":"x"}`},
			hub:    fakeHub{result: mcp.CallResult{Content: []mcp.Content{text("here"), {Type: mcp.ContentImage, MIMEType: "image/png", Data: png}}}},
			answer: tools.Answer{Approved: true}, want: []string{"here", "Image 1 (image/png) is attached"}, called: true, images: 1,
			says: []msg.Kind{msg.SayMCPServerResponse}},
		{name: "image without vision", params: map[string]string{"server_name": "srv", "tool_name": "echo", "arguments": `{"message":"x"}`},
			hub:    fakeHub{result: mcp.CallResult{Content: []mcp.Content{{Type: mcp.ContentImage, MIMEType: "image/png", Data: png}}}},
			answer: tools.Answer{Approved: true}, want: []string{"cannot view images"}, called: true, says: []msg.Kind{msg.SayMCPServerResponse}},
		{name: "links, embedded resources, structured content", params: map[string]string{"server_name": "srv", "tool_name": "echo", "arguments": `{"message":"x"}`},
			hub: fakeHub{result: mcp.CallResult{Structured: `{"temp":21}`, Content: []mcp.Content{
				{Type: mcp.ContentResourceLink, URI: "demo://a", Name: "A", Description: "first"},
				{Type: mcp.ContentResource, URI: "demo://b", Text: "bee"},
				{Type: mcp.ContentResource, URI: "demo://c", MIMEType: "application/gzip", Data: []byte{1, 2}}}}},
			answer: tools.Answer{Approved: true},
			want: []string{"[Resource link: A demo://a — first]", "[Resource demo://b]\nbee", "Binary content (application/gzip, 2 bytes) at demo://c",
				"Structured content:\n{\"temp\":21}"}, called: true, says: []msg.Kind{msg.SayMCPServerResponse}},
		{name: "progress", params: map[string]string{"server_name": "srv", "tool_name": "echo", "arguments": `{"message":"x"}`},
			hub:    fakeHub{result: mcp.CallResult{Content: []mcp.Content{text("ok")}}, progress: []mcp.Progress{{Progress: 1, Total: 2, Message: "half"}}},
			answer: tools.Answer{Approved: true}, want: []string{"ok"}, called: true,
			says: []msg.Kind{msg.SayMCPNotification, msg.SayMCPNotification, msg.SayMCPServerResponse}},
		{name: "tool error", params: map[string]string{"server_name": "srv", "tool_name": "echo", "arguments": `{"message":"x"}`},
			hub:    fakeHub{result: mcp.CallResult{IsError: true, Content: []mcp.Content{text("quota exceeded")}}},
			answer: tools.Answer{Approved: true}, want: []string{"reported an error", "quota exceeded"}, isErr: true, called: true,
			says: []msg.Kind{msg.SayMCPServerResponse}},
		{name: "empty", params: map[string]string{"server_name": "srv", "tool_name": "echo", "arguments": `{"message":"x"}`},
			answer: tools.Answer{Approved: true}, want: []string{"returned no content"}, called: true, says: []msg.Kind{msg.SayMCPServerResponse}},
		{name: "call fails", params: map[string]string{"server_name": "srv", "tool_name": "echo", "arguments": `{"message":"x"}`},
			hub: fakeHub{callErr: errors.New("transport closed")}, answer: tools.Answer{Approved: true},
			want: []string{"The call to srv echo failed: transport closed"}, isErr: true, called: true},
		{name: "denied", params: map[string]string{"server_name": "srv", "tool_name": "echo", "arguments": `{"message":"x"}`},
			answer: tools.Answer{Text: "not now"}, want: []string{"denied"}, rejected: true},
		{name: "missing server", params: map[string]string{"tool_name": "echo"}, want: []string{"'server_name'"}, isErr: true},
		{name: "missing tool", params: map[string]string{"server_name": "srv"}, want: []string{"'tool_name'"}, isErr: true},
		{name: "not JSON", params: map[string]string{"server_name": "srv", "tool_name": "echo", "arguments": `{message: hi}`},
			want: []string{"not valid JSON"}, isErr: true},
		{name: "not an object", params: map[string]string{"server_name": "srv", "tool_name": "echo", "arguments": `["hi"]`},
			want: []string{"must be a JSON object", "an array"}, isErr: true},
		{name: "schema mismatch", params: map[string]string{"server_name": "srv", "tool_name": "echo", "arguments": `{"msg":"hi"}`},
			want: []string{"do not match the input schema of echo", "missing property 'message'"}, isErr: true},
		{name: "no arguments means {}", params: map[string]string{"server_name": "srv", "tool_name": "echo"},
			want: []string{"do not match"}, isErr: true},
		{name: "unknown server", params: map[string]string{"server_name": "nope", "tool_name": "echo"},
			want: []string{`no MCP server named "nope"`, "offline, srv"}, isErr: true},
		{name: "offline server", params: map[string]string{"server_name": "offline", "tool_name": "echo"},
			want: []string{`"offline" cannot be used right now (disconnected: exit status 1)`}, isErr: true},
		{name: "unknown tool", params: map[string]string{"server_name": "srv", "tool_name": "ech"},
			want: []string{`has no tool "ech" (it has: echo)`}, isErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hub := tt.hub
			ui := &toolstest.UI{Answer: tt.answer}
			env := &tools.Env{UI: ui, Settings: tools.Settings{SupportsImages: tt.vision}}
			res, err := All(&hub)[0].Run(context.Background(), env, tools.Call{Name: UseTool, Params: tt.params})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("result lacks %q:\n%s", w, res.Text)
				}
			}
			if res.IsError != tt.isErr || res.Rejected != tt.rejected || len(res.Images) != tt.images {
				t.Errorf("IsError=%v Rejected=%v images=%d", res.IsError, res.Rejected, len(res.Images))
			}
			if called := len(hub.calls) > 0; called != tt.called {
				t.Errorf("called=%v", called)
			}
			var says []msg.Kind
			for _, s := range ui.Says {
				says = append(says, s.Kind)
			}
			if fmt.Sprint(says) != fmt.Sprint(tt.says) {
				t.Errorf("says %v, want %v", says, tt.says)
			}
		})
	}
}

// The approval carries server, tool and arguments, and the server's autoApprove list.
func TestUseMCPToolApproval(t *testing.T) {
	for _, auto := range []bool{false, true} {
		hub := &fakeHub{auto: auto, result: mcp.CallResult{Content: []mcp.Content{text("ok")}}}
		ui := &toolstest.UI{Answer: tools.Answer{Approved: true}}
		_, err := All(hub)[0].Run(context.Background(), &tools.Env{UI: ui},
			tools.Call{Params: map[string]string{"server_name": "srv", "tool_name": "echo", "arguments": ` {"message":"hi"} `}})
		if err != nil {
			t.Fatal(err)
		}
		a := ui.Approvals[0]
		p, _ := a.Payload.(*msg.MCP)
		if a.Ask != msg.AskUseMCPServer || a.Category != tools.CategoryMCP || a.MCPServer != "srv" || a.MCPTool != "echo" ||
			a.MCPAutoApproved != auto || p == nil || p.Arguments != `{"message":"hi"}` {
			t.Errorf("approval: %+v payload %+v", a, p)
		}
	}
}

func TestAccessMCPResource(t *testing.T) {
	tests := []struct {
		name   string
		params map[string]string
		hub    fakeHub
		answer tools.Answer
		want   string
		isErr  bool
	}{
		{"text", map[string]string{"server_name": "srv", "uri": "demo://resource/dynamic/text/7"},
			fakeHub{contents: []mcp.Content{{Type: mcp.ContentResource, URI: "demo://resource/dynamic/text/7", Text: "Resource 7"}}},
			tools.Answer{Approved: true}, "Resource 7", false},
		{"empty", map[string]string{"server_name": "srv", "uri": "demo://x"}, fakeHub{}, tools.Answer{Approved: true}, "resource is empty", false},
		{"missing uri", map[string]string{"server_name": "srv"}, fakeHub{}, tools.Answer{}, "'uri'", true},
		{"unknown server", map[string]string{"server_name": "x", "uri": "demo://x"}, fakeHub{}, tools.Answer{}, `no MCP server named "x"`, true},
		{"not connected", map[string]string{"server_name": "offline", "uri": "demo://x"}, fakeHub{}, tools.Answer{Approved: true}, "cannot be used right now (disconnected: exit status 1)", true},
		{"read fails", map[string]string{"server_name": "srv", "uri": "demo://x"}, fakeHub{callErr: errors.New("resource not found")}, tools.Answer{Approved: true}, "resource not found", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hub := tt.hub
			ui := &toolstest.UI{Answer: tt.answer}
			res, err := All(&hub)[1].Run(context.Background(), &tools.Env{UI: ui}, tools.Call{Params: tt.params})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(res.Text, tt.want) || res.IsError != tt.isErr {
				t.Errorf("IsError=%v %q", res.IsError, res.Text)
			}
			if len(ui.Approvals) == 1 && (!ui.Approvals[0].MCPAutoApproved || ui.Approvals[0].Category != tools.CategoryMCP) {
				t.Errorf("approval: %+v", ui.Approvals[0])
			}
		})
	}
}

func TestLoadDocumentationAndSpecs(t *testing.T) {
	ui := &toolstest.UI{}
	res, err := All(&fakeHub{})[2].Run(context.Background(), &tools.Env{UI: ui}, tools.Call{})
	if err != nil || !strings.Contains(res.Text, "mcp_settings.json") || len(ui.Says) != 1 || ui.Says[0].Kind != msg.SayLoadMCPDocumentation {
		t.Fatalf("%v %v %+v", res.Text[:40], err, ui.Says)
	}
	for _, tool := range All(&fakeHub{}) {
		s := tool.Spec()
		if s.Category != tools.CategoryMCP || !s.PlanSafe || strings.Contains(s.Description, "missing message") {
			t.Errorf("%s: %+v", s.Name, s)
		}
		for _, p := range s.Params {
			if strings.Contains(p.Description+p.Usage, "missing message") {
				t.Errorf("%s.%s lacks text", s.Name, p.Name)
			}
		}
	}
	for key := range messages.Sections() {
		if strings.TrimSpace(messages.Sections()[key]) == "" {
			t.Errorf("message %s is empty", key)
		}
	}
}

func TestTruncate(t *testing.T) {
	long := strings.Repeat("é", MaxResultChars+10)
	got := truncate(long)
	if !strings.HasPrefix(got, strings.Repeat("é", MaxResultChars)+"\n\n") || !strings.Contains(got, fmt.Sprintf("after %d of %d characters", MaxResultChars, MaxResultChars+10)) {
		t.Errorf("truncated tail: %q", got[len(got)-200:])
	}
	if truncate("short") != "short" {
		t.Error("short text changed")
	}
}

// A subagent's use_mcp_tool calls only tools their server marks read-only; unknown counts as
// not read-only. Nothing else changes.
func TestReadOnlyMCPTools(t *testing.T) {
	for _, readOnly := range []bool{true, false} {
		hub := &fakeHub{readOnly: readOnly, result: mcp.CallResult{Content: []mcp.Content{text("Echo: hi")}}}
		ts := ReadOnly(hub)
		if len(ts) != 2 || ts[0].Spec().Name != UseTool || ts[1].Spec().Name != AccessResource {
			t.Fatalf("tools: %d", len(ts))
		}
		ui := &toolstest.UI{Answer: tools.Answer{Approved: true}}
		res, err := ts[0].Run(context.Background(), &tools.Env{UI: ui},
			tools.Call{Name: UseTool, Params: map[string]string{"server_name": "srv", "tool_name": "echo", "arguments": `{"message":"hi"}`}})
		if err != nil {
			t.Fatal(err)
		}
		called := len(hub.calls) == 1
		if called != readOnly || res.IsError == readOnly {
			t.Errorf("readOnly=%v: called=%v result %+v", readOnly, called, res)
		}
		if !readOnly && !strings.Contains(res.Text, "read-only") {
			t.Errorf("refusal does not say why: %q", res.Text)
		}
	}
}
