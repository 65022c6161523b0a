//go:build unix

package workspace

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostileFile makes a path that must never be read like a file; it returns the path.
type hostileFile func(t *testing.T, dir string) string

func fifo(t *testing.T, dir string) string {
	p := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

func zeroLink(t *testing.T, dir string) string {
	p := filepath.Join(dir, "zero.txt")
	if err := os.Symlink("/dev/zero", p); err != nil {
		t.Fatal(err)
	}
	return p
}

func unixSocket(t *testing.T, dir string) string {
	p := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	t.Cleanup(func() { mustClose(t, l) })
	return p
}

// deadlineCtx bounds a call that must not block: if it did, the test ends with the
// context's error instead of hanging the package until go test's own timeout.
func deadlineCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// returnsWithin runs fn in a goroutine and fails the test if ctx ends first.
func returnsWithin(ctx context.Context, t *testing.T, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		t.Fatal("the call blocked")
		return nil
	}
}

func TestReadRegularRefusesHostileFiles(t *testing.T) {
	tests := []struct {
		name string
		make hostileFile
		kind string
	}{
		{"fifo", fifo, "named pipe"},
		{"symlink to /dev/zero", zeroLink, "character device"},
		{"unix socket", unixSocket, "socket"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.make(t, t.TempDir())
			ctx := deadlineCtx(t)
			err := returnsWithin(ctx, t, func() error {
				_, err := ReadRegular(ctx, p, 1<<20)
				return err
			})
			if !errors.Is(err, ErrNotRegular) {
				t.Fatalf("err = %v, want ErrNotRegular", err)
			}
			if !strings.Contains(err.Error(), tc.kind) {
				t.Errorf("err = %q, does not name the kind %q", err, tc.kind)
			}
			err = returnsWithin(ctx, t, func() error {
				f, _, err := OpenRegular(p)
				if err != nil {
					return err
				}
				return f.Close() // nil unless Close failed: either way not ErrNotRegular, so it fails below
			})
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("OpenRegular: err = %v, want ErrNotRegular", err)
			}
		})
	}
}

func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.txt")
	if err := os.WriteFile(small, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context //nolint:containedctx // the context a case calls with
		path    string
		limit   int64
		want    string
		wantErr error
	}{
		{"whole file", context.Background(), small, 100, "hello\n", nil},
		{"exactly the limit", context.Background(), small, 6, "hello\n", nil},
		{"over the limit", context.Background(), small, 5, "", ErrTooLarge},
		{"missing", context.Background(), filepath.Join(dir, "nope"), 100, "", os.ErrNotExist},
		{"folder", context.Background(), dir, 100, "", ErrNotRegular},
		{"cancelled", cancelled, small, 100, "", context.Canceled},
		// /proc files claim size 0 and hold more: the limit applies to what is read.
		{"size that lies", context.Background(), "/proc/self/status", 8, "", ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadRegular(tc.ctx, tc.path, tc.limit)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil || string(got) != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestReadRegularProcFile(t *testing.T) {
	got, err := ReadRegular(context.Background(), "/proc/self/status", 1<<20)
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	if !strings.Contains(string(got), "Name:") {
		t.Errorf("/proc/self/status read as %q", got)
	}
}

// TestWalkSurvivesHostileIgnoreFiles: a FIFO named .gitignore and a .cairnignore that
// includes /dev/zero must not stall or exhaust a walk; they just add no rules.
func TestWalkSurvivesHostileIgnoreFiles(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"a.txt":        "a",
		"sub/b.txt":    "b",
		".cairnignore": "secret.txt\n!include /dev/zero\n",
		"secret.txt":   "s",
	})
	if err := syscall.Mkfifo(filepath.Join(root, "sub", ".gitignore"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	ws := newWS(t, root)
	ctx := deadlineCtx(t)
	var got []string
	if err := returnsWithin(ctx, t, func() error {
		got = visible(t, ws, root, ListOptions)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"a.txt", "sub/", "sub/.gitignore", "sub/b.txt"} // the ignore file itself is always hidden
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("visible = %q, want %q", got, want)
	}
}
