package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// OpenMcpSettings opens mcp_settings.json in the named editor, when it is connected.
func (s *Services) OpenMcpSettings(ctx context.Context, req *cairnv1.OpenMcpSettingsRequest) (*cairnv1.OpenMcpSettingsResponse, error) {
	hub, err := s.hub()
	if err != nil {
		return nil, err
	}
	out := &cairnv1.OpenMcpSettingsResponse{Path: hub.SettingsPath()}
	if req.GetHostId() == "" {
		return out, nil
	}
	h, ok := s.b.Hosts.Get(req.GetHostId())
	if !ok {
		return out, nil
	}
	if err := hub.EnsureSettingsFile(); err != nil {
		return nil, toStatus(err)
	}
	if err := h.Editor().OpenFile(ctx, out.Path, 0); err != nil {
		return nil, toStatus(err)
	}
	out.Opened = true
	return out, nil
}
