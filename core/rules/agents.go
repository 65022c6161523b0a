package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// maxAgentsWalk bounds the folders findAgents visits, so listing rules in a huge workspace
// stays quick; AGENTS.md files past it are not listed (ForTask still finds them near touched
// paths).
const maxAgentsWalk = 20000

// skipFolder reports whether the AGENTS.md search leaves a folder out: hidden folders
// (.git, .venv, …) and node_modules never hold the project's own instructions.
func skipFolder(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules"
}

// findAgents lists every AGENTS.md under root, the root one first, then by path.
func findAgents(root string) ([]string, error) {
	if root == "" {
		return nil, nil
	}
	var (
		out    []string
		visits int
	)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			if p != root {
				return nil // an unreadable subfolder holds nothing we can use
			}
			return err
		}
		if d.IsDir() {
			if p != root && skipFolder(d.Name()) {
				return fs.SkipDir
			}
			if visits++; visits > maxAgentsWalk {
				return fs.SkipAll
			}
			return nil
		}
		if d.Name() == agentsFile && isRegular(p, d) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("rules: looking for %s: %w", agentsFile, err)
	}
	sortAgents(root, out)
	return out, nil
}

// agentsNear lists the AGENTS.md files at root and in every folder that is or holds one of the
// touched paths (slash, relative to root), the root one first, then by path.
func agentsNear(root string, touched []string) []string {
	if root == "" {
		return nil
	}
	dirs := map[string]bool{".": true}
	for _, p := range touched {
		for d := p; d != "." && d != "/" && d != ""; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	var out []string
	for d := range dirs {
		if d != "." && slices.ContainsFunc(strings.Split(d, "/"), skipFolder) {
			continue
		}
		abs := filepath.Join(root, filepath.FromSlash(d), agentsFile)
		if info, err := os.Stat(abs); err == nil && info.Mode().IsRegular() {
			out = append(out, abs)
		}
	}
	sortAgents(root, out)
	return out
}

// sortAgents orders AGENTS.md paths: the root one first, then by path.
func sortAgents(root string, files []string) {
	top := filepath.Join(root, agentsFile)
	slices.SortFunc(files, func(a, b string) int {
		switch {
		case a == top && b != top:
			return -1
		case b == top && a != top:
			return 1
		}
		return strings.Compare(a, b)
	})
}
