// Package rpc implements the daemon's gRPC services, one file per RPC. A handler only
// translates: decode the request, call core, encode the reply, map errors to codes.
package rpc

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cairnhq/cairn/server/hostbridge"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/checkpoint"
	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/hooks"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/presets"
	"github.com/cairnhq/cairn/core/mcp"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/tools/search"
	"github.com/cairnhq/cairn/core/workspace"
	"github.com/cairnhq/cairn/core/worktree"
)

// Backend is what the handlers call, built by the composition root: core's long-lived parts,
// the folders they read, and the few operations only the composition root can do.
type Backend struct {
	Tasks    *task.Manager
	Settings *config.Holder
	Hosts    *hostbridge.Registry
	// MCP is the daemon's MCP hub; Hooks records the hooks the user enabled and trusted.
	MCP     *mcp.Hub
	Hooks   *hooks.Store
	Version string
	Dirs    Dirs
	// Worktrees keeps the tasks' git worktrees (nil: worktree tasks are refused).
	Worktrees *worktree.Manager
	// Env does what needs the composition root (nil: those RPCs fail as unavailable).
	Env Env
	// SearchIndexes are the daemon's warm search indexes (nil: none); IdleExit is how long
	// the daemon stays after its last client (0: until stopped). GetState reports both.
	SearchIndexes *search.Indexes
	IdleExit      time.Duration
}

// Dirs are the folders the handlers read: the data dir and the user's global folders.
type Dirs struct {
	Data                                                                 string
	GlobalRules, GlobalWorkflows, GlobalSkills, GlobalHooks, GlobalModes string
}

// Env is what the handlers ask of the composition root.
type Env interface {
	// Index returns the file index of a workspace root (built on first use).
	Index(ctx context.Context, root string) (*workspace.Index, error)
	// Models lists the models of an endpoint, read the way its preset says.
	Models(ctx context.Context, preset, baseURL, apiKey string) ([]presets.Model, error)
	// CheckpointDiff lists the files changed in a task's workspace between checkpoint from and
	// checkpoint to ("": the working tree); the paths are relative to root, returned with it.
	CheckpointDiff(ctx context.Context, workspace []string, from, to string) (root string, files []checkpoint.FileDiff, err error)
	// CheckpointRestoreFiles puts a task's workspace files back to a checkpoint.
	CheckpointRestoreFiles(ctx context.Context, workspace []string, hash string) error
	// CheckpointExport writes a task's workspace files at a checkpoint into dir (a fork's
	// worktree); the workspace is untouched.
	CheckpointExport(ctx context.Context, workspace []string, hash, dir string) error
}

// Services implements every cairn.v1 service.
type Services struct {
	cairnv1.UnimplementedTaskServiceServer
	cairnv1.UnimplementedUiServiceServer
	cairnv1.UnimplementedStateServiceServer
	cairnv1.UnimplementedWorkspaceServiceServer
	cairnv1.UnimplementedHostBridgeServiceServer
	cairnv1.UnimplementedCheckpointServiceServer
	cairnv1.UnimplementedMcpServiceServer
	b *Backend
}

// New returns the services over b.
func New(b *Backend) *Services { return &Services{b: b} }

// taskFor returns a loaded task, loading it from history (served by the direct host) when
// needed.
func (s *Services) taskFor(ctx context.Context, id string) (*task.Task, error) {
	return s.taskOn(ctx, id, "")
}

// taskOn returns a loaded task, loading it from history when needed, served by the host the
// request names ("": the direct host). A task already loaded keeps the host it has.
func (s *Services) taskOn(ctx context.Context, id, hostID string) (*task.Task, error) {
	if id == "" {
		return nil, status.Error(codes.InvalidArgument, "task_id is required")
	}
	t, err := s.b.Tasks.Open(ctx, id, hostID)
	if err != nil {
		return nil, toStatus(err)
	}
	return t, nil
}

// toStatus maps core errors to gRPC codes. Messages never carry paths from the user's home
// beyond what the user sent.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	var apiErr *llm.APIError
	switch {
	case errors.Is(err, store.ErrLocked):
		// Names the holding process and how to reach it: the caller runs on this machine.
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.Is(err, task.ErrNotFound), errors.Is(err, store.ErrNotFound):
		return status.Error(codes.NotFound, "task not found")
	case errors.Is(err, task.ErrNoCommand):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, task.ErrNoOpenAsk), errors.Is(err, task.ErrStaleAsk), errors.Is(err, task.ErrBusy),
		errors.Is(err, task.ErrClosed):
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.Is(err, mcp.ErrUnknownServer), errors.Is(err, mcp.ErrUnknownTool):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, mcp.ErrBadSettings), errors.Is(err, mcp.ErrBadName), errors.Is(err, mcp.ErrBadArguments):
		return status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, mcp.ErrNotConnected), errors.Is(err, mcp.ErrClosed):
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.Is(err, hooks.ErrNotFound):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, hooks.ErrChanged):
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.Is(err, hooks.ErrTooLarge):
		return status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, task.ErrBadRequest):
		return status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	case errors.As(err, &apiErr):
		return status.Error(codes.Unavailable, apiErr.Error())
	}
	return status.Error(codes.Internal, err.Error())
}
