// Package workspace is the agent's view of the folders it works in: the roots, path
// resolution that never leaves a root silently, the ignore rules (nested .gitignore files,
// ripgrep's .ignore, the user's .clineignore/.cairnignore and the default build folders),
// walks that apply them, atomic writes, the daemon's one file list per root (Lists: kept
// current through core/watch and shared by the @ index, the search index and list_files;
// docs/architecture.md, "Watching files") and the fuzzy file index behind @-autocomplete.
//
// *Workspace has the method set of tools.Files; this package does not import core/tools
// (it sits one level below it), so the assertion lives in core/tools' tests.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
)

// Root is one workspace folder.
type Root struct {
	// Path is absolute, cleaned and symlink-resolved.
	Path string
	// Name is the folder's base name; non-primary roots are addressed as `name:path`.
	Name string
	user *userIgnore
}

// Workspace is a set of root folders, the first one primary. It is safe for concurrent use.
type Workspace struct {
	roots []*Root
}

// New returns a workspace over the given folders; the first is the primary root.
func New(roots ...string) (*Workspace, error) {
	if len(roots) == 0 {
		return nil, ErrNoRoots
	}
	ws := &Workspace{}
	for _, r := range roots {
		abs, err := filepath.Abs(matchReplaced(r))
		if err != nil {
			return nil, fmt.Errorf("workspace root %q: %w", r, err)
		}
		resolved, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("workspace root %q: %w", r, err)
		}
		st, err := os.Stat(resolved)
		if err != nil {
			return nil, fmt.Errorf("workspace root %q: %w", r, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("workspace root %q: %w", r, ErrNotDir)
		}
		ws.roots = append(ws.roots, &Root{Path: resolved, Name: filepath.Base(resolved), user: newUserIgnore(resolved)})
	}
	return ws, nil
}

// Root returns the primary root.
func (ws *Workspace) Root() string { return ws.roots[0].Path }

// Roots returns every root, primary first.
func (ws *Workspace) Roots() []Root {
	out := make([]Root, len(ws.roots))
	for i, r := range ws.roots {
		out[i] = *r
	}
	return out
}

// Resolve maps a model-supplied path to an absolute, cleaned path with symlinks resolved as
// far as the path exists. A name that is not valid UTF-8 reaches the model and the clients with
// U+FFFD in place of its bad bytes (JSON and protobuf cannot carry them); such a path comes
// back here and is mapped to the file it stands for (see matchReplaced). Relative paths are taken from the primary root, `name:rest` from the
// root called name. inside reports whether the result lies within a root: a `../` escape, an
// absolute path elsewhere or a symlink pointing out all give inside=false, never an error.
func (ws *Workspace) Resolve(path string) (abs string, inside bool, err error) {
	if strings.IndexByte(path, 0) >= 0 {
		return "", false, fmt.Errorf("%q: %w", path, ErrBadPath)
	}
	base := ws.roots[0].Path
	if name, rest, ok := strings.Cut(path, ":"); ok && !filepath.IsAbs(path) {
		if r := ws.byName(name); r != nil {
			base, path = r.Path, rest
		}
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(base, path)
	}
	abs = evalExisting(matchReplaced(filepath.Clean(path)))
	return abs, ws.rootOf(abs) != nil, nil
}

// Rel returns the path shown to the user and the model: root-relative inside the primary
// root, `name:rel` inside another root, the absolute path elsewhere.
func (ws *Workspace) Rel(abs string) string {
	abs = filepath.Clean(abs)
	r := ws.rootOf(abs)
	if r == nil {
		// The caller may hold an unresolved path through a symlinked folder.
		if resolved := evalExisting(abs); resolved != abs {
			if r = ws.rootOf(resolved); r != nil {
				abs = resolved
			}
		}
	}
	if r == nil {
		return filepath.ToSlash(abs)
	}
	rel, _ := filepath.Rel(r.Path, abs)
	rel = filepath.ToSlash(rel)
	if r == ws.roots[0] {
		return rel
	}
	return r.Name + ":" + rel
}

// Ignored reports whether the user's ignore file (.clineignore/.cairnignore at the root that
// holds abs) blocks abs. The ignore files themselves are always blocked. Rules are reloaded
// when the files change.
func (ws *Workspace) Ignored(abs string) bool {
	abs = filepath.Clean(abs)
	r := ws.rootOf(abs)
	if r == nil {
		return false
	}
	rel, _ := filepath.Rel(r.Path, abs)
	if rel == "." {
		return false
	}
	isDir := false
	if st, err := os.Stat(abs); err == nil {
		isDir = st.IsDir()
	}
	return r.user.current().match(strings.Split(filepath.ToSlash(rel), "/"), isDir)
}

func (ws *Workspace) byName(name string) *Root {
	for _, r := range ws.roots {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// rootOf returns the innermost root containing abs (roots may nest).
func (ws *Workspace) rootOf(abs string) *Root {
	var best *Root
	for _, r := range ws.roots {
		if within(r.Path, abs) && (best == nil || len(r.Path) > len(best.Path)) {
			best = r
		}
	}
	return best
}

func within(root, p string) bool {
	return containedIn(root, p, filepath.Separator, runtime.GOOS == "windows")
}

// containedIn reports whether the clean path p is root or lies below it, for paths separated
// by sep. fold compares case-insensitively, as Windows does (`c:\work` is `C:\Work`). A root
// that ends in its separator (`/`, `C:\`) contains every path under it.
func containedIn(root, p string, sep byte, fold bool) bool {
	if fold {
		root, p = strings.ToLower(root), strings.ToLower(p)
	}
	if p == root {
		return true
	}
	if root == "" || !strings.HasPrefix(p, root) {
		return false
	}
	return root[len(root)-1] == sep || p[len(root)] == sep
}

// evalExisting resolves symlinks on the longest existing prefix of p and appends the rest, so
// a new file under a symlinked folder resolves to where it will really be written.
func evalExisting(p string) string { return evalDepth(p, 0) }

// maxLinks bounds symlink hops through dangling links, as the kernel does (ELOOP).
const maxLinks = 40

func evalDepth(p string, depth int) string {
	var tail []string
	cur := p
	for {
		resolved, err := filepath.EvalSymlinks(cur)
		if err == nil {
			for i := len(tail) - 1; i >= 0; i-- {
				resolved = filepath.Join(resolved, tail[i])
			}
			return resolved
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return p
		}
		// A dangling symlink still decides where a write lands: follow it by hand.
		if st, lerr := os.Lstat(cur); lerr == nil && st.Mode()&fs.ModeSymlink != 0 && depth < maxLinks {
			if target, rerr := os.Readlink(cur); rerr == nil {
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(cur), target)
				}
				for i := len(tail) - 1; i >= 0; i-- {
					target = filepath.Join(target, tail[i])
				}
				return evalDepth(filepath.Clean(target), depth+1)
			}
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		tail = append(tail, filepath.Base(cur))
		cur = parent
	}
}
