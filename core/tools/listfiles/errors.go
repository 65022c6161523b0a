package listfiles

import "errors"

// Sentinel errors of List.
var (
	// ErrRefused: a recursive listing of the file system root or the home folder.
	ErrRefused = errors.New("listfiles: refusing to list the file system root or home folder recursively")
	// ErrNotDir: the path does not exist or is not a folder.
	ErrNotDir = errors.New("listfiles: not a folder")
	// ErrNoTree: env.Files cannot walk folders (it is not a *workspace.Workspace).
	ErrNoTree = errors.New("listfiles: the workspace does not support listing")
)
