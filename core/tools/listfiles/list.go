// Package listfiles is the list_files tool and the listing behind the first turn's
// environment details: breadth first, ignore-aware, capped, in Cline's order.
package listfiles

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairnhq/cairn/core/workspace"
)

// DefaultLimit is the entry cap of list_files and of the environment-details file list.
const DefaultLimit = 200

// Tree is the part of the workspace a listing needs.
type Tree interface {
	NewFilter(dir string, opts workspace.FilterOptions) *workspace.Filter
}

// readers is the optional part of a Tree that says where a listing reads its folders from:
// the daemon's file list of the root (workspace.Lists.Reader). Without it, from the disk.
type readers interface {
	Reader(ctx context.Context, dir string) (read workspace.DirReader, done func())
}

// Listed is a Tree whose listings read folders from the daemon's file lists where a list of
// the root is held open and current, and from the disk elsewhere (docs/architecture.md,
// "Watching files"); the listing is the same either way.
type Listed struct {
	Tree
	Lists *workspace.Lists
}

// Reader implements readers.
func (l Listed) Reader(ctx context.Context, dir string) (workspace.DirReader, func()) {
	return l.Lists.Reader(ctx, dir)
}

// List returns up to limit entries below dir (absolute), relative to dir with "/" after
// folders, in Cline's display order. A recursive listing goes breadth first, so a cut keeps
// the shallow entries, and applies workspace.ListOptions; hidden folders are kept when dir
// itself is hidden. A flat listing shows every child except what the user ignore file blocks.
// truncated reports that entries were left out.
func List(ctx context.Context, t Tree, dir string, recursive bool, limit int) (entries []string, truncated bool, err error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	if st, serr := os.Stat(dir); serr != nil || !st.IsDir() {
		return nil, false, fmt.Errorf("%s: %w", dir, ErrNotDir)
	}
	if recursive && isRootOrHome(dir) {
		return nil, false, fmt.Errorf("%s: %w", dir, ErrRefused)
	}
	opts := workspace.ListOptions
	if !recursive {
		opts = workspace.FilterOptions{UserIgnore: true}
	} else if strings.HasPrefix(filepath.Base(dir), ".") {
		opts.Hidden = workspace.ShowHidden
	}

	read, done := workspace.DirReader(os.ReadDir), func() {}
	if r, ok := t.(readers); ok {
		read, done = r.Reader(ctx, dir)
	}
	defer done()

	type level struct {
		f   *workspace.Filter
		rel string // "" or "sub/dir/"
	}
	queue := []level{{f: t.NewFilter(dir, opts)}}
	for len(queue) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		cur := queue[0]
		queue = queue[1:]
		children, rerr := read(cur.f.Dir())
		if rerr != nil {
			continue // unreadable folder: listed, not entered
		}
		for _, c := range children {
			name, isDir := c.Name(), c.IsDir()
			if cur.f.Skip(name, isDir) {
				continue
			}
			if len(entries) == limit {
				return sortEntries(entries), true, nil
			}
			rel := cur.rel + name
			if isDir {
				rel += "/"
				if recursive {
					queue = append(queue, level{f: cur.f.Child(name), rel: rel})
				}
			}
			entries = append(entries, rel)
		}
	}
	return sortEntries(entries), false, nil
}

// Format renders a listing for the model and the user.
func Format(entries []string, truncated bool) string {
	if len(entries) == 0 {
		if truncated {
			return message("truncated", 0)
		}
		return message("empty")
	}
	out := strings.Join(entries, "\n")
	if truncated {
		out += "\n\n" + message("truncated", len(entries))
	}
	return out
}

func isRootOrHome(dir string) bool {
	dir = filepath.Clean(dir)
	if dir == filepath.VolumeName(dir)+string(filepath.Separator) { // "/", `C:\`, `\\host\share\`
		return true
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return false
	}
	if resolved, err := filepath.EvalSymlinks(home); err == nil {
		home = resolved
	}
	return dir == filepath.Clean(home)
}

// sortEntries orders like Cline's listing: at each level, files before folders, a folder
// directly followed by its contents, names compared case-insensitively with numbers by value.
func sortEntries(entries []string) []string {
	slices.SortFunc(entries, compareListing)
	return entries
}

func compareListing(a, b string) int {
	// Component by component, without splitting (a listing sorts every entry it keeps).
	for {
		ac, arest, amore := strings.Cut(a, "/")
		bc, brest, bmore := strings.Cut(b, "/")
		if ac != bc {
			// The one that ends at this level is a file here; the other goes deeper.
			switch {
			case !amore && bmore:
				return -1
			case !bmore && amore:
				return 1
			}
			return naturalCompare(ac, bc)
		}
		switch {
		case amore && bmore:
			a, b = arest, brest
		case amore: // a goes deeper
			return 1
		case bmore:
			return -1
		default:
			return 0
		}
	}
}

// naturalCompare compares case-insensitively, runs of digits by numeric value ("f2" < "f10");
// a final byte comparison keeps the order total.
func naturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na, nb := strings.TrimLeft(a[si:i], "0"), strings.TrimLeft(b[sj:j], "0")
			if len(na) != len(nb) {
				return len(na) - len(nb)
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			continue
		}
		la, lb := lowerByte(ca), lowerByte(cb)
		if la != lb {
			return int(la) - int(lb)
		}
		i++
		j++
	}
	if c := (len(a) - i) - (len(b) - j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
