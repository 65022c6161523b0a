package rpc

import (
	"path/filepath"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/cairnhq/cairn/core/hooks"
)

// hookRoot cleans a workspace root named by a hook request ("" stays "": global hooks only).
func hookRoot(root string) (string, error) {
	if root == "" {
		return "", nil
	}
	if !filepath.IsAbs(root) {
		return "", status.Error(codes.InvalidArgument, "workspace_root must be absolute")
	}
	return filepath.Clean(root), nil
}

func roots(root string) []string {
	if root == "" {
		return nil
	}
	return []string{root}
}

// findHook returns the hook at path among the workspace's and the global hooks: only a file
// Cairn would run as a hook can be trusted or toggled.
func (s *Services) findHook(root, path string) (hooks.Hook, error) {
	if s.b.Hooks == nil {
		return hooks.Hook{}, status.Error(codes.FailedPrecondition, "this daemon keeps no hook trust")
	}
	hs, err := hooks.Discover(roots(root), s.b.Dirs.GlobalHooks)
	if err != nil {
		return hooks.Hook{}, toStatus(err)
	}
	for _, h := range hs {
		if h.Path == filepath.Clean(path) {
			return h, nil
		}
	}
	return hooks.Hook{}, toStatus(hooks.ErrNotFound)
}
