package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// File names are bytes, but the model's API (JSON) and the clients' wire (protobuf) carry only
// UTF-8: on the way out, the bad bytes of a Latin-1 or Shift-JIS name become U+FFFD (one per
// byte in JSON, one per run in protobuf). matchReplaced is the way back: a path that does not
// exist and holds U+FFFD is matched, component by component, against the folder's entries whose
// names are not valid UTF-8 and read the same once their bad bytes are replaced. Only a unique
// match is taken; otherwise the path is left as it was and fails as a missing file would. This
// is the lossless round trip for paths: nothing else in the daemon needs to know the bytes.

// matchReplaced returns path with its U+FFFD components mapped to the entries they stand for.
func matchReplaced(path string) string {
	if !strings.ContainsRune(path, utf8.RuneError) {
		return path
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		return path
	}
	vol := filepath.VolumeName(path)
	rest := path[len(vol):]
	cur := vol
	if strings.HasPrefix(rest, string(filepath.Separator)) {
		cur += string(filepath.Separator)
	}
	parts := strings.Split(strings.Trim(rest, string(filepath.Separator)), string(filepath.Separator))
	for i, part := range parts {
		next := filepath.Join(cur, part)
		if strings.ContainsRune(part, utf8.RuneError) {
			if _, err := os.Lstat(next); errors.Is(err, fs.ErrNotExist) {
				name, ok := replacedEntry(cur, part)
				if !ok {
					return path
				}
				next = filepath.Join(cur, name)
			}
		}
		if i == len(parts)-1 {
			return next
		}
		cur = next
	}
	return path
}

// replacedEntry finds the one entry of dir whose name is not valid UTF-8 and folds to the same
// text as want.
func replacedEntry(dir, want string) (string, bool) {
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	key := foldInvalid(want)
	found, n := "", 0
	for _, e := range entries {
		if name := e.Name(); !utf8.ValidString(name) && foldInvalid(name) == key {
			found, n = name, n+1
		}
	}
	return found, n == 1
}

// foldInvalid replaces every run of invalid bytes and U+FFFD characters with one U+FFFD, so a
// name compares equal however its bad bytes were replaced on the way out.
func foldInvalid(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	inRun := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == utf8.RuneError {
			if !inRun {
				b.WriteRune(utf8.RuneError)
			}
			inRun = true
			continue
		}
		inRun = false
		b.WriteRune(r)
	}
	return b.String()
}
