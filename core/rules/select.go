package rules

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Relative turns the paths a task touched into clean slash paths relative to root, in order
// and without duplicates. A relative path is taken as relative to root; an absolute one
// outside root (another workspace root, the home folder) is dropped, as are paths that climb
// out of root. The root itself becomes ".". On Windows a path that starts with a separator but
// names no drive (`\src\a.go`, `/src/a.go`) is on root's drive, not inside root, as Windows
// reads it; one that names a drive without a separator (`D:a.go`) is never inside root.
func Relative(root string, paths []string) []string {
	var out []string
	for _, p := range paths {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		rel, err := filepath.Rel(root, filepath.Clean(underRoot(root, p)))
		if err != nil || !filepath.IsLocal(rel) && rel != "." {
			continue
		}
		rel = filepath.ToSlash(rel)
		if !slices.Contains(out, rel) {
			out = append(out, rel)
		}
	}
	return out
}

// underRoot is p made absolute against root, the way the platform reads p.
func underRoot(root, p string) string {
	switch {
	case filepath.IsAbs(p), filepath.VolumeName(p) != "":
		return p
	case os.IsPathSeparator(p[0]):
		return filepath.VolumeName(root) + p // Windows only: on Unix such a p is absolute
	default:
		return filepath.Join(root, filepath.FromSlash(p))
	}
}

// Select keeps the rules that apply to a task that touched the given paths (slash paths
// relative to the workspace root, as Relative returns them). Only enabled rules count:
//
//   - A rule without Paths applies always.
//   - A rule with Paths applies when at least one touched path matches one of its globs.
//   - The root AGENTS.md applies always. A nested AGENTS.md applies when it is the nearest
//     enabled AGENTS.md to at least one touched path: for a path, the one in the deepest folder
//     that holds the path (the path itself, when it is a folder). A disabled AGENTS.md is as if
//     absent, so the next one up takes over. Paths in an AGENTS.md frontmatter narrow it further.
//
// The order of rs is kept.
func Select(rs []Rule, touched []string) []Rule {
	folders := map[string]bool{}
	for _, r := range rs {
		if r.Source == SourceAgents && r.Enabled {
			folders[r.Folder] = true
		}
	}
	chosen := map[string]bool{"": true}
	for _, p := range touched {
		if d, ok := nearest(p, folders); ok {
			chosen[d] = true
		}
	}
	var out []Rule
	for _, r := range rs {
		if !r.Enabled {
			continue
		}
		if r.Source == SourceAgents && !chosen[r.Folder] {
			continue
		}
		if len(r.Paths) > 0 && !matchesAny(r.Paths, touched) {
			continue
		}
		out = append(out, r)
	}
	return out
}

// nearest returns the deepest folder in folders that is p or holds p ("" is the root).
func nearest(p string, folders map[string]bool) (string, bool) {
	for d := p; d != "." && d != "" && d != "/"; d = path.Dir(d) {
		if folders[d] {
			return d, true
		}
	}
	return "", folders[""]
}

func matchesAny(globs, touched []string) bool {
	for _, p := range touched {
		for _, g := range globs {
			if matchGlob(g, p) {
				return true
			}
		}
	}
	return false
}
