package rpc

import (
	"context"
	"strings"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/hooks"
	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/tools/edit"
)

var hookStatuses = lazy.Value[map[hooks.Status]cairnv1.HookStatus]{New: func() map[hooks.Status]cairnv1.HookStatus {
	return map[hooks.Status]cairnv1.HookStatus{
		hooks.StatusTrusted: cairnv1.HookStatus_HOOK_STATUS_TRUSTED,
		hooks.StatusChanged: cairnv1.HookStatus_HOOK_STATUS_CHANGED,
		hooks.StatusNew:     cairnv1.HookStatus_HOOK_STATUS_NEW,
	}
}}

// ListHooks lists a workspace's hooks and the global ones, with what changed since they were
// trusted and their last run.
func (s *Services) ListHooks(_ context.Context, req *cairnv1.ListHooksRequest) (*cairnv1.ListHooksResponse, error) {
	root, err := hookRoot(req.GetWorkspaceRoot())
	if err != nil {
		return nil, err
	}
	out := &cairnv1.ListHooksResponse{GlobalDir: s.b.Dirs.GlobalHooks}
	if s.b.Hooks == nil {
		return out, nil
	}
	hs, err := hooks.Discover(roots(root), s.b.Dirs.GlobalHooks)
	if err != nil {
		return nil, toStatus(err)
	}
	out.GlobalEnabled = s.b.Hooks.Enabled(hooks.GlobalScope)
	out.WorkspaceEnabled = root != "" && s.b.Hooks.Enabled(root)
	for _, in := range s.b.Hooks.Describe(hs) {
		e := &cairnv1.HookEntry{Kind: string(in.Kind), Name: in.Name, Path: in.Path, Global: in.Scope == hooks.GlobalScope,
			Status: hookStatuses.Get()[in.Status], Enabled: in.Enabled, Executable: in.Executable, CurrentSha256: in.CurrentSHA256}
		if in.Status != hooks.StatusTrusted {
			e.Diff = strings.ToValidUTF8(edit.Unified(in.Name, in.Trusted, in.Current, 3), "\uFFFD")
		}
		if r := in.LastRun; !r.At.IsZero() {
			e.LastRun = &cairnv1.HookRun{AtUnixMs: r.At.UnixMilli(), DurationMs: r.Duration.Milliseconds(), Event: string(r.Event),
				ExitCode: int32(r.ExitCode), Stdout: strings.ToValidUTF8(r.Stdout, "\uFFFD"),
				Stderr: strings.ToValidUTF8(r.Stderr, "\uFFFD"), Error: r.Error}
		}
		out.Hooks = append(out.Hooks, e)
	}
	return out, nil
}
