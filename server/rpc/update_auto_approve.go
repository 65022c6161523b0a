package rpc

import (
	"context"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// UpdateAutoApprove replaces the auto-approval policy (for new and running tasks alike).
func (s *Services) UpdateAutoApprove(_ context.Context, req *cairnv1.UpdateAutoApproveRequest) (*cairnv1.UpdateAutoApproveResponse, error) {
	if req.GetAutoApprove() == nil {
		return nil, status.Error(codes.InvalidArgument, "auto_approve is required")
	}
	cur := s.b.Settings.Get()
	deny := cur.AutoApprove.DenyList
	cur.AutoApprove = fromAutoApprove(req.GetAutoApprove())
	if len(cur.AutoApprove.DenyList) == 0 {
		cur.AutoApprove.DenyList = deny
	}
	if err := s.b.Settings.Set(cur); err != nil {
		return nil, toStatus(err)
	}
	s.b.Tasks.SetAutoApprove(cur.AutoApprove)
	return &cairnv1.UpdateAutoApproveResponse{}, nil
}
