package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/task"
)

// fromOverrides turns a request's task overrides into the task's own settings, its approval
// categories added to the shared policy (nil in, nil out). Bad values are InvalidArgument.
func fromOverrides(in *cairnv1.TaskOverrides, shared config.Settings) (*config.Overrides, error) {
	if in == nil {
		return nil, nil
	}
	o := config.Overrides{BaseURL: strings.TrimSpace(in.GetBaseUrl()), APIKey: strings.TrimSpace(in.GetApiKey()),
		Model: strings.TrimSpace(in.GetModel()), ToolFormat: in.GetToolFormat(), ReasoningEffort: in.GetReasoningEffort(),
		MaxRequests: int(in.GetMaxRequests()), MaxCost: in.GetMaxCost(), DoneWhen: strings.TrimSpace(in.GetDoneWhen())}
	if in.Browser != nil {
		on := in.GetBrowser()
		o.Browser = &on
	}
	if in.CommandWaitSeconds != nil {
		wait := int(in.GetCommandWaitSeconds())
		o.CommandWait = &wait
	}
	if in.NoSandbox != nil {
		off := in.GetNoSandbox()
		o.NoSandbox = &off
	}
	if in.SandboxNetwork != nil {
		on := in.GetSandboxNetwork()
		o.Network = &on
	}
	if j := strings.TrimSpace(in.GetMcpServersJson()); j != "" {
		if !json.Valid([]byte(j)) {
			return nil, status.Error(codes.InvalidArgument, "mcp_servers_json is not JSON")
		}
		o.MCPServers = []byte(j)
	}
	if len(in.GetAutoApprove()) > 0 || in.GetYolo() {
		p, err := shared.AutoApprove.WithApprovals(in.GetAutoApprove(), in.GetYolo())
		if err != nil {
			return nil, status.Error(codes.InvalidArgument, err.Error())
		}
		o.AutoApprove = &p
	}
	if err := o.Check(); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	return &o, nil
}

// UpdateTaskSettings changes the model or the policy of a task with settings of its own, and
// adds allow rules to any task's session layer of the policy (docs/settings.md, "Policy files").
func (s *Services) UpdateTaskSettings(ctx context.Context, req *cairnv1.UpdateTaskSettingsRequest) (*cairnv1.UpdateTaskSettingsResponse, error) {
	t, err := s.taskFor(ctx, req.GetTaskId())
	if err != nil {
		return nil, err
	}
	var rules []config.SessionRule
	for _, r := range req.GetSessionAllow() {
		rules = append(rules, config.SessionRule{Command: r.GetCommand(), Files: r.GetFiles(), Tool: r.GetTool(), MCP: r.GetMcp(), Web: r.GetWeb()})
	}
	var p *config.AutoApprove
	if req.GetAutoApprove() != nil {
		v := fromAutoApprove(req.GetAutoApprove())
		p = &v
	}
	err = t.UpdateOwnSettings(strings.TrimSpace(req.GetModel()), p, rules)
	if errors.Is(err, task.ErrNotOwnSettings) {
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	}
	if err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.UpdateTaskSettingsResponse{}, nil
}
