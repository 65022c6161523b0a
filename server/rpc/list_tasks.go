package rpc

import (
	"context"
	"sort"
	"strings"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// ListTasks lists history, filtered and sorted.
func (s *Services) ListTasks(_ context.Context, req *cairnv1.ListTasksRequest) (*cairnv1.ListTasksResponse, error) {
	metas, err := s.b.Tasks.Store().List()
	if err != nil {
		return nil, toStatus(err)
	}
	q := strings.ToLower(strings.TrimSpace(req.GetSearch()))
	out := &cairnv1.ListTasksResponse{}
	for _, m := range metas {
		out.TotalSizeBytes += m.SizeBytes
		if req.GetFavoritesOnly() && !m.Favorite {
			continue
		}
		if q != "" && !strings.Contains(strings.ToLower(m.Title), q) {
			continue
		}
		if root := req.GetWorkspaceRoot(); root != "" && (len(m.Workspace) == 0 || m.Workspace[0] != root) {
			continue
		}
		out.Tasks = append(out.Tasks, toSummary(m))
	}
	ts := out.Tasks
	switch req.GetSort() {
	case cairnv1.TaskSort_TASK_SORT_OLDEST:
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].UpdatedUnixMs < ts[j].UpdatedUnixMs })
	case cairnv1.TaskSort_TASK_SORT_MOST_EXPENSIVE:
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].Cost > ts[j].Cost })
	case cairnv1.TaskSort_TASK_SORT_MOST_TOKENS:
		sort.SliceStable(ts, func(i, j int) bool {
			return ts[i].TokensIn+ts[i].TokensOut > ts[j].TokensIn+ts[j].TokensOut
		})
	}
	return out, nil
}
