package workspace

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// skipUTF16Names skips on Windows, where names are UTF-16 and cannot hold bytes that are not
// UTF-8: the mapping back has nothing to map there.
func skipUTF16Names(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows file names are UTF-16: a name with bytes that are not UTF-8 cannot exist")
	}
}

func TestResolveMapsReplacedBytesBack(t *testing.T) {
	skipUTF16Names(t)
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"d\xe9p/caf\xe9.txt": "latin-1 names",
		"d\xe9p/two\xe9\xe8": "two bad bytes",
		"same/a\xe9":         "one of two",
		"same/a\xe8":         "the other",
		"ok/caf\u00e9.txt":   "valid UTF-8 name",
		"ok/caf\uFFFD.txt":   "a real U+FFFD in the name",
	})
	ws := newWS(t, root)
	tests := []struct {
		path string
		want string // root-relative, as on disk; "" when the path must stay unresolved
	}{
		{"d\uFFFDp/caf\uFFFD.txt", "d\xe9p/caf\xe9.txt"},
		{"d\uFFFDp/two\uFFFD", "d\xe9p/two\xe9\xe8"},       // one U+FFFD per run (protobuf)
		{"d\uFFFDp/two\uFFFD\uFFFD", "d\xe9p/two\xe9\xe8"}, // one per byte (JSON)
		{"d\uFFFDp", "d\xe9p"},
		{"ok/caf\u00e9.txt", "ok/caf\u00e9.txt"},
		{"ok/caf\uFFFD.txt", "ok/caf\uFFFD.txt"}, // an existing name wins
		{"same/a\uFFFD", ""},                     // ambiguous: not guessed
		{"d\uFFFDp/missing\uFFFD.txt", ""},
		{"d\uFFFDp/new.txt", "d\xe9p/new.txt"}, // a new file in a mapped folder
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			abs, inside, err := ws.Resolve(tc.path)
			if err != nil || !inside {
				t.Fatalf("Resolve = %q, %v, %v", abs, inside, err)
			}
			want := filepath.Join(root, filepath.FromSlash(tc.path))
			if tc.want != "" {
				want = filepath.Join(root, filepath.FromSlash(tc.want))
			}
			if abs != want {
				t.Errorf("Resolve(%q) = %q, want %q", tc.path, abs, want)
			}
		})
	}
	if got, err := os.ReadFile(filepath.Join(root, "d\xe9p", "caf\xe9.txt")); err != nil || string(got) != "latin-1 names" {
		t.Fatalf("fixture: %q %v", got, err)
	}
}

func TestNewMapsReplacedRoot(t *testing.T) {
	skipUTF16Names(t)
	base := t.TempDir()
	onDisk := filepath.Join(base, "proj\xe9")
	if err := os.Mkdir(onDisk, 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := New(filepath.Join(base, "proj\uFFFD"))
	if err != nil {
		t.Fatal(err)
	}
	if ws.Root() != onDisk {
		t.Errorf("root = %q, want %q", ws.Root(), onDisk)
	}
}
