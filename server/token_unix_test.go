//go:build unix

package server

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTokenWrittenOverOwnFile: a start writes its fresh token over the file an earlier start
// left (the same file, still 0600), but makes a new file where the old one has a second name or
// was changed after its last write, so nobody who could read the old file reads the new token.
func TestTokenWrittenOverOwnFile(t *testing.T) {
	read := func(t *testing.T, p string) string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	stat := func(t *testing.T, p string) os.FileInfo {
		t.Helper()
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Fatalf("token file mode %v, want a regular 0600 file", fi.Mode())
		}
		return fi
	}
	create := func(t *testing.T, p string) string {
		t.Helper()
		tok, err := createToken(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := read(t, p); got != tok+"\n" {
			t.Fatalf("token file holds %q, want %q", got, tok+"\n")
		}
		return tok
	}

	t.Run("its own file is written over", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "daemon.token")
		tok1 := create(t, path)
		// An inode number can be reused at once; the file itself, held open, is the proof.
		first, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = first.Close() }() // read-only
		tok2 := create(t, path)
		stat(t, path)
		if tok1 == tok2 {
			t.Fatal("the second start kept the first one's token")
		}
		if got := readAt(t, first); got != tok2+"\n" {
			t.Fatalf("the first start's file reads %q: the second start made a new file instead of writing over its own", got)
		}
	})

	t.Run("a file with a second name is replaced", func(t *testing.T) {
		dir := t.TempDir()
		path, other := filepath.Join(dir, "daemon.token"), filepath.Join(dir, "elsewhere")
		old := create(t, path)
		if err := os.Link(path, other); err != nil {
			t.Fatal(err)
		}
		// Written again since: its last change is a write, as after any start of ours.
		if err := os.WriteFile(path, []byte(old+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		create(t, path)
		if got := read(t, other); got != old+"\n" {
			t.Fatalf("the other name reads %q: the new token was written through it", got)
		}
		if os.SameFile(stat(t, path), stat(t, other)) {
			t.Fatal("the token file still has a second name")
		}
	})

	t.Run("a file narrowed after its last write is replaced", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "daemon.token")
		old := create(t, path)
		// Someone opens it while it is readable by others; it is narrowed again later.
		if err := os.Chmod(path, 0o644); err != nil {
			t.Fatal(err)
		}
		held, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = held.Close() }() // read-only
		past := time.Now().Add(-time.Hour)  // its content was written long before
		if err := os.Chtimes(path, past, past); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o600); err != nil {
			t.Fatal(err)
		}
		tok := create(t, path)
		if got := readAt(t, held); got != old+"\n" || strings.Contains(got, tok) {
			t.Fatalf("the file held open reads %q: the new token reached it", got)
		}
	})
}

// readAt reads what an open file holds now, from its start.
func readAt(t *testing.T, f *os.File) string {
	t.Helper()
	buf := make([]byte, 256)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatal(err)
	}
	return string(buf[:n])
}
