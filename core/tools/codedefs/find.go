package codedefs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxFindFiles bounds the source files Find parses.
const maxFindFiles = 2000

// Place is a definition Find found: an absolute path and the 1-based line of its name.
type Place struct {
	Path string
	Line int
}

// Find returns the definitions named name in the source files of dir, or when it has none,
// of the whole of root (hidden folders and node_modules left out), skipping what ignored
// blocks and files too large to outline, after at most a bounded number of files. It is the
// code navigation's answer when no language server runs (core/tools/nav). Each of the two
// looks is one cairn-helper run.
func Find(ctx context.Context, root, dir, name string, ignored func(abs string) bool) ([]Place, error) {
	seen := 0
	want := func(p string) bool {
		if seen >= maxFindFiles || !Supported(p) || ignored(p) {
			return false
		}
		seen++
		return true
	}
	named := func(paths []string) ([]Place, error) {
		parsed, err := parse(ctx, paths)
		if err != nil {
			return nil, err
		}
		var out []Place
		for _, f := range parsed {
			for _, d := range f.Defs {
				if d.Name == name {
					out = append(out, Place{Path: f.Path, Line: d.Line})
				}
			}
		}
		return out, nil
	}
	var near []string
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if p := filepath.Join(dir, e.Name()); !e.IsDir() && want(p) {
				near = append(near, p)
			}
		}
	}
	if out, err := named(near); err != nil || len(out) > 0 {
		return out, err
	}
	var far []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && (p != root && strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || ignored(p)):
			return filepath.SkipDir
		case d.IsDir() || filepath.Dir(p) == dir:
			return nil
		case seen >= maxFindFiles:
			return filepath.SkipAll
		}
		if want(p) {
			far = append(far, p)
		}
		return nil
	})
	if err != nil && !errors.Is(err, filepath.SkipAll) {
		return nil, err
	}
	return named(far)
}
