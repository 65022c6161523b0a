package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// DeleteTasks removes tasks from history.
func (s *Services) DeleteTasks(ctx context.Context, req *cairnv1.DeleteTasksRequest) (*cairnv1.DeleteTasksResponse, error) {
	ids := req.GetTaskIds()
	if req.GetAll() {
		metas, err := s.b.Tasks.Store().List()
		if err != nil {
			return nil, toStatus(err)
		}
		ids = ids[:0]
		for _, m := range metas {
			ids = append(ids, m.ID)
		}
	}
	if err := s.b.Tasks.Delete(ctx, ids...); err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.DeleteTasksResponse{}, nil
}
