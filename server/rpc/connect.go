package rpc

import (
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// Connect serves a host bridge stream.
func (s *Services) Connect(stream cairnv1.HostBridgeService_ConnectServer) error {
	return toStatus(s.b.Hosts.Serve(stream))
}
