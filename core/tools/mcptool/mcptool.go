// Package mcptool is the MCP tool family: use_mcp_tool calls a tool of a connected MCP server,
// access_mcp_resource reads one of its resources (listed or made from a template), and
// load_mcp_documentation returns Cairn's guide to building a server. The servers themselves
// live in the daemon's hub (core/mcp); this package only turns calls and results into what
// the model and the user see.
//
// Whatever the model can fix — an unknown server or tool, arguments that are not JSON or do
// not match the tool's schema, a server that is not connected, a tool that reports an error —
// comes back as an error result; only a broken approval channel is a Go error.
package mcptool

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/cairnhq/cairn/core/mcp"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

// Tool names.
const (
	UseTool        = toolnames.UseMCPTool
	AccessResource = toolnames.AccessMCPResource
	LoadDocs       = toolnames.LoadMCPDocumentation
)

// MaxResultChars caps the text of one result sent to the model (about 12k tokens).
const MaxResultChars = 50_000

// Hub is what the tools need from the daemon's MCP hub (*mcp.Hub implements it).
type Hub interface {
	// Servers lists the configured servers (for naming them in errors).
	Servers() []mcp.Server
	// CheckArguments validates arguments against a tool's input schema; it returns errors
	// matching mcp.ErrUnknownServer, ErrNotConnected, ErrUnknownTool or ErrBadArguments.
	CheckArguments(server, tool string, args json.RawMessage) error
	// WaitReady waits while the server is still connecting (bounded by its timeout).
	WaitReady(ctx context.Context, server string) error
	// ToolAutoApproved reports whether the tool is on its server's autoApprove list.
	ToolAutoApproved(server, tool string) bool
	CallTool(ctx context.Context, server, tool string, args json.RawMessage, progress func(mcp.Progress)) (mcp.CallResult, error)
	ReadResource(ctx context.Context, server, uri string) ([]mcp.Content, error)
}

//go:embed messages.md
var messagesMD string

//go:embed documentation.md
var documentation string

var messages = tools.Texts{MD: &messagesMD}

func message(key string, args ...any) string { return messages.Format(key, args...) }

// All returns the three tools over hub.
func All(hub Hub) []tools.Tool {
	return []tools.Tool{&useTool{hub: hub}, &accessResource{hub: hub}, loadDocs{}}
}

func serverParam() tools.Param {
	return tools.Param{Name: "server_name", Required: true, Description: message("server_name"), Usage: message("server_name_usage")}
}

// ReadOnly returns the tools a subagent may use over hub: use_mcp_tool limited to the tools
// their server marks read-only, and access_mcp_resource.
func ReadOnly(hub Hub) []tools.Tool {
	return []tools.Tool{&useTool{hub: hub, readOnly: true}, &accessResource{hub: hub}}
}

// isReadOnly reports whether the server marks the tool read-only.
func isReadOnly(hub Hub, server, tool string) bool {
	for _, s := range hub.Servers() {
		if s.Name != server {
			continue
		}
		for _, t := range s.Tools {
			if t.Name == tool {
				return t.ReadOnly
			}
		}
	}
	return false
}

type useTool struct {
	hub Hub
	// readOnly refuses tools that are not marked read-only (a subagent's).
	readOnly bool
}

func (*useTool) Spec() tools.Spec {
	return tools.Spec{Name: UseTool, Description: message(UseTool), Category: tools.CategoryMCP, PlanSafe: true,
		ArgParam: "server_name",
		Params: []tools.Param{
			serverParam(),
			{Name: "tool_name", Required: true, Description: message("tool_name"), Usage: message("tool_name_usage")},
			{Name: "arguments", Description: message("arguments"), Usage: message("arguments_usage")},
		}}
}

func (u *useTool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	server, ok := call.Param("server_name")
	if !ok || server == "" {
		return tools.MissingParam(UseTool, "server_name"), nil
	}
	tool, ok := call.Param("tool_name")
	if !ok || tool == "" {
		return tools.MissingParam(UseTool, "tool_name"), nil
	}
	argText, _ := call.Param("arguments")
	args, bad := parseArguments(tool, argText)
	if bad != nil {
		return *bad, nil
	}
	if err := u.hub.WaitReady(ctx, server); err != nil {
		return hubError(u.hub, server, tool, err), nil
	}
	if err := u.hub.CheckArguments(server, tool, args); err != nil {
		return hubError(u.hub, server, tool, err), nil
	}
	if u.readOnly && !isReadOnly(u.hub, server, tool) {
		return tools.Errorf("%s", message("not_read_only", tool, server)), nil
	}
	payload := &msg.MCP{Server: server, Tool: tool, Arguments: string(args)}
	ans, err := env.UI.Approve(ctx, tools.Approval{Ask: msg.AskUseMCPServer, Category: tools.CategoryMCP,
		MCPServer: server, MCPTool: tool, MCPAutoApproved: u.hub.ToolAutoApproved(server, tool),
		Text: server + " " + tool + " " + string(args), Payload: payload})
	if err != nil {
		return tools.Result{}, fmt.Errorf("mcptool: approval: %w", err)
	}
	if !ans.Approved {
		return tools.Result{Rejected: true, Text: message("denied"), UserFeedback: ans.Text}, nil
	}
	// Progress updates one row in place; the last one is kept when the call ends.
	var lastProgress atomic.Pointer[string]
	res, err := u.hub.CallTool(ctx, server, tool, args, func(p mcp.Progress) {
		text := progressText(p)
		lastProgress.Store(&text)
		env.UI.Say(ctx, msg.SayMCPNotification, text, &msg.MCP{Server: server, Tool: tool}, true)
	})
	if last := lastProgress.Load(); last != nil {
		env.UI.Say(ctx, msg.SayMCPNotification, *last, &msg.MCP{Server: server, Tool: tool}, false)
	}
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, fmt.Errorf("mcptool: %w", ctx.Err())
		}
		return hubError(u.hub, server, tool, err), nil
	}
	out := render(res.Content, env.Settings.SupportsImages, message("empty"))
	if res.Structured != "" && !hasText(res.Content) {
		out.Text = joinNonEmpty(out.Text, message("structured", res.Structured))
	}
	out.Text = truncate(out.Text)
	env.UI.Say(ctx, msg.SayMCPServerResponse, out.Text, &msg.MCP{Server: server, Tool: tool, Response: out.Text}, false)
	if res.IsError {
		return tools.Result{Text: message("tool_error", out.Text), IsError: true}, nil
	}
	return out, nil
}

type accessResource struct{ hub Hub }

func (*accessResource) Spec() tools.Spec {
	return tools.Spec{Name: AccessResource, Description: message(AccessResource), Category: tools.CategoryMCP,
		PlanSafe: true, ArgParam: "server_name",
		Params: []tools.Param{
			serverParam(),
			{Name: "uri", Required: true, Description: message("uri"), Usage: message("uri_usage")},
		}}
}

func (a *accessResource) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	server, ok := call.Param("server_name")
	if !ok || server == "" {
		return tools.MissingParam(AccessResource, "server_name"), nil
	}
	uri, ok := call.Param("uri")
	if !ok || uri == "" {
		return tools.MissingParam(AccessResource, "uri"), nil
	}
	if err := a.hub.WaitReady(ctx, server); err != nil {
		return hubError(a.hub, server, "", err), nil
	}
	// Reading is what MCP servers are for: the MCP auto-approve category alone allows it.
	ans, err := env.UI.Approve(ctx, tools.Approval{Ask: msg.AskUseMCPServer, Category: tools.CategoryMCP,
		MCPServer: server, MCPAutoApproved: true, Text: server + " " + uri,
		Payload: &msg.MCP{Server: server, URI: uri}})
	if err != nil {
		return tools.Result{}, fmt.Errorf("mcptool: approval: %w", err)
	}
	if !ans.Approved {
		return tools.Result{Rejected: true, Text: message("denied"), UserFeedback: ans.Text}, nil
	}
	contents, err := a.hub.ReadResource(ctx, server, uri)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, fmt.Errorf("mcptool: %w", ctx.Err())
		}
		return hubError(a.hub, server, "", err), nil
	}
	out := render(contents, env.Settings.SupportsImages, message("empty_resource"))
	out.Text = truncate(out.Text)
	env.UI.Say(ctx, msg.SayMCPServerResponse, out.Text, &msg.MCP{Server: server, URI: uri, Response: out.Text}, false)
	return out, nil
}

type loadDocs struct{}

func (loadDocs) Spec() tools.Spec {
	return tools.Spec{Name: LoadDocs, Description: message(LoadDocs), Category: tools.CategoryMCP, PlanSafe: true}
}

func (loadDocs) Run(ctx context.Context, env *tools.Env, _ tools.Call) (tools.Result, error) {
	env.UI.Say(ctx, msg.SayLoadMCPDocumentation, "", nil, false)
	return tools.Result{Text: strings.TrimSpace(documentation)}, nil
}

// parseArguments reads the arguments parameter: absent or blank means {}.
func parseArguments(tool, text string) (json.RawMessage, *tools.Result) {
	text = strings.TrimSpace(text)
	if text == "" {
		return json.RawMessage(`{}`), nil
	}
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		r := tools.Errorf("%s", message("not_json", tool, err))
		return nil, &r
	}
	if _, ok := v.(map[string]any); !ok {
		kind := "a JSON value of another kind"
		switch v.(type) {
		case []any:
			kind = "an array"
		case string:
			kind = "a string"
		case float64:
			kind = "a number"
		case nil:
			kind = "null"
		case bool:
			kind = "a boolean"
		}
		r := tools.Errorf("%s", message("not_object", tool, kind))
		return nil, &r
	}
	return json.RawMessage(text), nil
}

// hubError turns the hub's errors into results the model can act on.
func hubError(hub Hub, server, tool string, err error) tools.Result {
	switch {
	case errors.Is(err, mcp.ErrUnknownServer):
		names := serverNames(hub)
		if len(names) == 0 {
			return tools.Errorf("%s", message("no_servers", server))
		}
		return tools.Errorf("%s", message("unknown_server", server, strings.Join(names, ", ")))
	case errors.Is(err, mcp.ErrNotConnected):
		reason := err.Error()
		if i := strings.LastIndex(reason, `" is `); i >= 0 {
			reason = reason[i+len(`" is `):] // the status and error, without the server's name
		}
		return tools.Errorf("%s", message("not_connected", server, reason))
	case errors.Is(err, mcp.ErrUnknownTool):
		return tools.Errorf("%s", message("unknown_tool", strings.TrimPrefix(err.Error(), mcp.ErrUnknownTool.Error()+": ")))
	case errors.Is(err, mcp.ErrBadArguments):
		return tools.Errorf("%s", message("bad_arguments", tool, strings.TrimPrefix(err.Error(), mcp.ErrBadArguments.Error()+": ")))
	}
	what := server
	if tool != "" {
		what = server + " " + tool
	}
	return tools.Errorf("%s", message("call_failed", what, err))
}

func serverNames(hub Hub) []string {
	var names []string
	for _, s := range hub.Servers() {
		names = append(names, s.Name)
	}
	return names
}

// render turns content blocks into the model's result: text in order, images attached for
// vision models (named in the text where they were), everything else described.
func render(cs []mcp.Content, vision bool, empty string) tools.Result {
	var out tools.Result
	var parts []string
	for _, c := range cs {
		switch c.Type {
		case mcp.ContentText:
			parts = append(parts, c.Text)
		case mcp.ContentImage:
			if vision {
				out.Images = append(out.Images, tools.Image{MediaType: c.MIMEType, Data: c.Data})
				parts = append(parts, message("image_attached", len(out.Images), c.MIMEType))
			} else {
				parts = append(parts, message("image_no_vision", c.MIMEType, len(c.Data)))
			}
		case mcp.ContentAudio:
			parts = append(parts, message("audio", c.MIMEType, len(c.Data)))
		case mcp.ContentResource:
			if c.Data != nil {
				parts = append(parts, message("blob", c.MIMEType, len(c.Data), c.URI))
				continue
			}
			if len(cs) == 1 {
				parts = append(parts, c.Text) // a resource read: the text is the answer
				continue
			}
			parts = append(parts, message("embedded", c.URI)+"\n"+c.Text)
		case mcp.ContentResourceLink:
			label := c.URI
			if c.Name != "" {
				label = c.Name + " " + c.URI
			}
			extra := ""
			if c.Description != "" {
				extra = " — " + c.Description
			}
			parts = append(parts, message("link", label, extra))
		}
	}
	out.Text = joinNonEmpty(parts...)
	if out.Text == "" {
		out.Text = empty
	}
	return out
}

func hasText(cs []mcp.Content) bool {
	for _, c := range cs {
		if c.Type == mcp.ContentText && strings.TrimSpace(c.Text) != "" {
			return true
		}
	}
	return false
}

func joinNonEmpty(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "\n\n")
}

// truncate keeps the first MaxResultChars characters (never splitting a character) and says
// how much was cut.
func truncate(s string) string {
	r := []rune(s)
	if len(r) <= MaxResultChars {
		return s
	}
	return string(r[:MaxResultChars]) + "\n\n" + message("truncated", MaxResultChars, len(r))
}

func progressText(p mcp.Progress) string {
	var s string
	switch {
	case p.Total > 0:
		s = fmt.Sprintf("%g/%g", p.Progress, p.Total)
	default:
		s = fmt.Sprintf("%g", p.Progress)
	}
	if p.Message != "" {
		s += " " + p.Message
	}
	return message("progress", s)
}
