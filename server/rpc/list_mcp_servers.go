package rpc

import (
	"context"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/mcp"
)

// ListMcpServers returns every configured MCP server with its status and lists.
func (s *Services) ListMcpServers(context.Context, *cairnv1.ListMcpServersRequest) (*cairnv1.ListMcpServersResponse, error) {
	hub, err := s.hub()
	if err != nil {
		return nil, err
	}
	return &cairnv1.ListMcpServersResponse{Servers: toMcpServers(hub.Servers()), SettingsPath: hub.SettingsPath(),
		SettingsError: hub.SettingsError()}, nil
}

// hub returns the daemon's MCP hub.
func (s *Services) hub() (*mcp.Hub, error) {
	if s.b.MCP == nil {
		return nil, status.Error(codes.Unavailable, "this daemon has no MCP hub")
	}
	return s.b.MCP, nil
}

var mcpStatuses = lazy.Value[map[mcp.Status]cairnv1.McpServerStatus]{New: func() map[mcp.Status]cairnv1.McpServerStatus {
	return map[mcp.Status]cairnv1.McpServerStatus{
		mcp.StatusConnecting:   cairnv1.McpServerStatus_MCP_SERVER_STATUS_CONNECTING,
		mcp.StatusConnected:    cairnv1.McpServerStatus_MCP_SERVER_STATUS_CONNECTED,
		mcp.StatusDisconnected: cairnv1.McpServerStatus_MCP_SERVER_STATUS_DISCONNECTED,
		mcp.StatusDisabled:     cairnv1.McpServerStatus_MCP_SERVER_STATUS_DISABLED,
	}
}}

func toMcpServers(ss []mcp.Server) []*cairnv1.McpServer {
	out := make([]*cairnv1.McpServer, 0, len(ss))
	for _, s := range ss {
		transport := s.Config.Type
		target := s.Config.URL
		if s.Config.Command != "" && (transport == "" || transport == mcp.TypeStdio) {
			transport = mcp.TypeStdio
			target = strings.Join(append([]string{s.Config.Command}, s.Config.Args...), " ")
		} else if transport == "" {
			transport = mcp.TypeStreamableHTTP
		}
		timeout := s.Config.Timeout
		if timeout < 1 {
			timeout = mcp.DefaultTimeout
		}
		ps := &cairnv1.McpServer{Name: s.Name, Status: mcpStatuses.Get()[s.Status], Error: s.Error, Stderr: s.Stderr,
			Transport: transport, Target: target, TimeoutSeconds: int32(timeout), Disabled: s.Config.Disabled,
			Instructions: s.Instructions}
		for _, t := range s.Tools {
			ps.Tools = append(ps.Tools, &cairnv1.McpTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, AutoApprove: t.AutoApprove})
		}
		for _, r := range s.Resources {
			ps.Resources = append(ps.Resources, &cairnv1.McpResource{Uri: r.URI, Name: r.Name, Description: r.Description, MimeType: r.MIMEType})
		}
		for _, t := range s.Templates {
			ps.ResourceTemplates = append(ps.ResourceTemplates, &cairnv1.McpResourceTemplate{UriTemplate: t.URITemplate, Name: t.Name, Description: t.Description, MimeType: t.MIMEType})
		}
		for _, p := range s.Prompts {
			pp := &cairnv1.McpPrompt{Name: p.Name, Description: p.Description}
			for _, a := range p.Arguments {
				pp.Arguments = append(pp.Arguments, &cairnv1.McpPromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
			ps.Prompts = append(ps.Prompts, pp)
		}
		out = append(out, ps)
	}
	return out
}
