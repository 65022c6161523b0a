package checkpoint

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
)

// The generated info/exclude: defaults, the user's ignore files with includes resolved, the
// data dir, nested repositories and large files, with glob characters quoted.
func TestExcludeFileGolden(t *testing.T) {
	isolateHome(t)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{
		".clineignore": "from-cline/\n",
		".cairnignore": "# comment\nsecrets/\n!include more.ignore\r\n!keep.txt\n",
		"more.ignore":  "*.gen\n",
	})
	m := &Manager{root: ws, dataRel: ".cairn/checkpoints"}
	skip := skipList{
		Nested: map[string]bool{"vendor/lib": true, "a [b]": true},
		Large:  map[string]int64{"big*.bin": 11 << 20, "end ": 12 << 20},
	}
	got := m.excludes(skip)
	golden.File(t, filepath.Join("testdata", "exclude.golden"), got)
}

func TestEscapePattern(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain/path.txt", "plain/path.txt"},
		{"a*b?c[d]", `a\*b\?c\[d]`},
		{`back\slash`, `back\\slash`},
		{"two  ", `two\ \ `},
		{"#hash", "#hash"}, // anchored with a leading slash by the caller
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			if got := escapePattern(tt.in); got != tt.want {
				t.Fatalf("escapePattern(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// A data dir inside the workspace is never snapshotted into itself.
func TestDataDirInsideWorkspace(t *testing.T) {
	isolateHome(t)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"a.txt": "a\n"})
	m, err := New(context.Background(), filepath.Join(ws, ".cairn-data"), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer mustClose(t, m)
	h := commit(t, m)
	if got := trackedIn(t, m, h); !reflect.DeepEqual(got, []string{"a.txt"}) {
		t.Fatalf("checkpoint holds %q", got)
	}
}
