package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// ExportTask renders a task as markdown.
func (s *Services) ExportTask(ctx context.Context, req *cairnv1.ExportTaskRequest) (*cairnv1.ExportTaskResponse, error) {
	t, err := s.taskFor(ctx, req.GetTaskId())
	if err != nil {
		return nil, err
	}
	md, name := t.Markdown()
	return &cairnv1.ExportTaskResponse{Markdown: clean(md), FileName: clean(name)}, nil
}
