package rpc

import (
	"context"
	"github.com/cairnhq/cairn/core/modes"
	"log/slog"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/task"
)

// NewTask starts a task. With worktree set, the task gets a git worktree of its own first
// (README, "Tasks in worktrees"), which takes the place of the first workspace root.
func (s *Services) NewTask(ctx context.Context, req *cairnv1.NewTaskRequest) (*cairnv1.NewTaskResponse, error) {
	own, err := fromOverrides(req.GetOverrides(), s.b.Settings.Get())
	if err != nil {
		return nil, err
	}
	opts := task.Options{Workspace: req.GetWorkspaceRoots(), HostID: req.GetHostId(), Mode: modeOf(req.GetModeSlug(), req.GetMode()),
		Overrides: own, Parent: req.GetParentTaskId()}
	if _, ok := modes.Load(opts.Workspace, s.b.Dirs.GlobalModes).Get(opts.Mode); !ok {
		return nil, status.Errorf(codes.InvalidArgument, "no mode %q in this workspace", opts.Mode)
	}
	if req.GetWorktree() {
		wm, err := s.worktrees()
		if err != nil {
			return nil, err
		}
		if len(opts.Workspace) == 0 {
			return nil, status.Error(codes.InvalidArgument, "a worktree task needs a workspace root in a git repository")
		}
		opts.ID = task.NewID()
		w, err := wm.Create(ctx, opts.Workspace[0], task.Title(req.GetText()), opts.ID, s.b.Settings.Get().WorktreeCarryChanges)
		if err != nil {
			return nil, worktreeStatus(err)
		}
		opts.Workspace = append([]string{w.Root()}, opts.Workspace[1:]...)
		t, err := s.b.Tasks.New(ctx, opts, req.GetText(), req.GetImages(), req.GetFiles())
		if err != nil {
			if derr := wm.Discard(context.WithoutCancel(ctx), opts.ID); derr != nil {
				slog.Warn("worktree of a task that did not start left behind", "task", opts.ID, "err", derr)
			}
			return nil, toStatus(err)
		}
		return &cairnv1.NewTaskResponse{TaskId: t.ID()}, nil
	}
	t, err := s.b.Tasks.New(ctx, opts, req.GetText(), req.GetImages(), req.GetFiles())
	if err != nil {
		return nil, toStatus(err)
	}
	return &cairnv1.NewTaskResponse{TaskId: t.ID()}, nil
}
