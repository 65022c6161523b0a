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
// code navigation's answer when no language server runs (core/tools/nav).
func Find(ctx context.Context, root, dir, name string, ignored func(abs string) bool) ([]Place, error) {
	var out []Place
	seen := 0
	look := func(p string) error {
		if seen >= maxFindFiles || !Supported(p) || ignored(p) {
			return nil
		}
		seen++
		src, err := os.ReadFile(p)
		if err != nil || len(src) > MaxFileBytes {
			return nil // an unreadable or huge file does not hide the others
		}
		defs, err := Parse(ctx, p, src)
		if err != nil {
			return ctx.Err()
		}
		for _, d := range defs {
			if d.Name == name {
				out = append(out, Place{Path: p, Line: d.Line})
			}
		}
		return nil
	}
	if entries, err := os.ReadDir(dir); err == nil {
		for _, e := range entries {
			if err := look(filepath.Join(dir, e.Name())); err != nil {
				return nil, err
			}
		}
	}
	if len(out) > 0 {
		return out, nil
	}
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
		return look(p)
	})
	if err != nil && !errors.Is(err, filepath.SkipAll) {
		return nil, err
	}
	return out, nil
}
