package rpc

import (
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// WatchMcpServers sends the MCP servers now and after every change. Changes coalesce: a
// slow client skips intermediate states but always receives the latest one.
func (s *Services) WatchMcpServers(_ *cairnv1.WatchMcpServersRequest, stream cairnv1.McpService_WatchMcpServersServer) error {
	hub, err := s.hub()
	if err != nil {
		return err
	}
	changes, cancel := hub.Subscribe()
	defer cancel()
	ctx := stream.Context()
	for {
		if err := stream.Send(&cairnv1.WatchMcpServersResponse{Servers: toMcpServers(hub.Servers()),
			SettingsPath: hub.SettingsPath(), SettingsError: hub.SettingsError()}); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil // the client went away
		case _, ok := <-changes:
			if !ok {
				return nil // the hub closed: the daemon is stopping
			}
		}
	}
}
