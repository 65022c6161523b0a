package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/mcp"
	"github.com/cairnhq/cairn/core/rules"
)

// builtinCommands are the slash commands every workspace has (docs/prompt.md, "Mentions,
// slash commands and rules").
var builtinCommands = []*cairnv1.SlashCommand{
	{Name: "newtask", Description: "Start a new task with context from this one"},
	{Name: "smol", Description: "Condense the conversation to save context"},
	{Name: "compact", Description: "Condense the conversation to save context"},
	{Name: "newrule", Description: "Create a rules file from this conversation"},
	{Name: "reportbug", Description: "Report a bug in Cairn"},
	{Name: "deep-planning", Description: "Investigate thoroughly and write a plan before coding"},
}

// ListSlashCommands lists built-in commands, the enabled workflows and the prompts of the
// connected MCP servers (as mcp:server:prompt).
func (s *Services) ListSlashCommands(_ context.Context, req *cairnv1.ListSlashCommandsRequest) (*cairnv1.ListSlashCommandsResponse, error) {
	out := &cairnv1.ListSlashCommandsResponse{Commands: append([]*cairnv1.SlashCommand(nil), builtinCommands...)}
	if root := req.GetWorkspaceRoot(); root != "" {
		wfs, err := rules.Workflows(root, s.b.Dirs.GlobalWorkflows, s.b.Settings.Get().RuleToggles)
		if err != nil {
			return nil, toStatus(err)
		}
		for _, w := range wfs {
			if w.Enabled {
				out.Commands = append(out.Commands, &cairnv1.SlashCommand{Name: w.Name, Description: "Workflow", Workflow: true})
			}
		}
	}
	if s.b.MCP != nil {
		for _, srv := range s.b.MCP.Servers() {
			if srv.Status != mcp.StatusConnected {
				continue
			}
			for _, p := range srv.Prompts {
				desc := p.Description
				if desc == "" {
					desc = "MCP prompt of " + srv.Name
				}
				out.Commands = append(out.Commands, &cairnv1.SlashCommand{Name: "mcp:" + srv.Name + ":" + p.Name, Description: desc})
			}
		}
	}
	return out, nil
}
