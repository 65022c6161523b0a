package agent

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cairnhq/cairn/core/mcp"
	"github.com/cairnhq/cairn/core/prompt"
)

// mcpServers describes the hub's servers for the MCP SERVERS section, read afresh for every
// prompt: a server that connected or changed its tools since the last turn shows up at once.
// Disabled servers are left out. Servers come sorted by name and each one's tools, templates
// and resources are sorted here, whatever order the server lists them in: the section stays
// byte for byte the same from request to request until a server's lists really change, which
// keeps the provider's prompt cache warm.
func mcpServers(hub *mcp.Hub) []prompt.MCPServer {
	if hub == nil {
		return nil
	}
	var out []prompt.MCPServer
	for _, s := range hub.Servers() {
		if s.Status == mcp.StatusDisabled {
			continue
		}
		ps := prompt.MCPServer{Name: s.Name, Status: string(s.Status), Instructions: s.Instructions}
		for _, t := range s.Tools {
			ps.Tools = append(ps.Tools, prompt.MCPTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema})
		}
		for _, t := range s.Templates {
			ps.ResourceTemplates = append(ps.ResourceTemplates, prompt.MCPResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, Description: t.Description})
		}
		for _, r := range s.Resources {
			ps.Resources = append(ps.Resources, prompt.MCPResource{URI: r.URI, Name: r.Name, Description: r.Description})
		}
		slices.SortStableFunc(ps.Tools, func(a, b prompt.MCPTool) int { return cmp.Compare(a.Name, b.Name) })
		slices.SortStableFunc(ps.ResourceTemplates, func(a, b prompt.MCPResourceTemplate) int {
			return cmp.Compare(a.URITemplate, b.URITemplate)
		})
		slices.SortStableFunc(ps.Resources, func(a, b prompt.MCPResource) int { return cmp.Compare(a.URI, b.URI) })
		out = append(out, ps)
	}
	return out
}

// MCPPromptPrefix starts a slash command that runs an MCP prompt: /mcp:server:prompt.
const MCPPromptPrefix = "/mcp:"

// ExpandMCPPrompt replaces a leading /mcp:server:prompt with the prompt's text from the server.
// Words right after it of the form name=value fill the prompt's arguments; the rest of the text
// follows the prompt. ok is false when the text does not start with such a command; a failure
// (unknown server, not connected) is reported inside the text so the model and user see it.
func ExpandMCPPrompt(ctx context.Context, hub *mcp.Hub, text string) (out string, ok bool) {
	trimmed := strings.TrimLeft(text, " \t\n")
	if hub == nil || !strings.HasPrefix(trimmed, MCPPromptPrefix) {
		return text, false
	}
	line, after, _ := strings.Cut(trimmed, "\n")
	fields := strings.Fields(line)
	head := fields[0]
	server, name, found := strings.Cut(strings.TrimPrefix(head, MCPPromptPrefix), ":")
	if !found || server == "" || name == "" {
		return text, false
	}
	args := map[string]string{}
	i := 1
	for ; i < len(fields); i++ {
		k, v, isArg := strings.Cut(fields[i], "=")
		if !isArg || k == "" {
			break
		}
		args[k] = v
	}
	remainder := strings.Join(fields[i:], " ")
	if after != "" {
		remainder = strings.TrimSpace(remainder + "\n" + after)
	}
	// The first message of a task may come before the server has connected.
	err := hub.WaitReady(ctx, server)
	var body string
	if err == nil {
		body, err = hub.GetPrompt(ctx, server, name, args)
	}
	if err != nil {
		body = fmt.Sprintf("(The MCP prompt %s could not be loaded: %v)", head, err)
	}
	if remainder != "" {
		body += "\n\n" + remainder
	}
	return body, true
}
