package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// SearchFiles returns the best fuzzy matches among a workspace's files and folders.
func (s *Services) SearchFiles(ctx context.Context, req *cairnv1.SearchFilesRequest) (*cairnv1.SearchFilesResponse, error) {
	if req.GetWorkspaceRoot() == "" {
		return nil, status.Error(codes.InvalidArgument, "workspace_root is required")
	}
	if s.b.Env == nil {
		return nil, status.Error(codes.Unavailable, "this daemon keeps no file index")
	}
	ix, err := s.b.Env.Index(ctx, req.GetWorkspaceRoot())
	if err != nil {
		return nil, toStatus(err)
	}
	n := int(req.GetLimit())
	if n <= 0 || n > 100 {
		n = 20
	}
	out := &cairnv1.SearchFilesResponse{}
	for _, m := range ix.Query(req.GetQuery(), n) {
		out.Matches = append(out.Matches, &cairnv1.FileMatch{Path: clean(m.Rel), IsDir: m.IsDir})
	}
	return out, nil
}
