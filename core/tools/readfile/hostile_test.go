//go:build unix

package readfile

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/toolstest"
)

// hostileRoot holds a FIFO, a symlink to /dev/zero and a listening unix socket: files that
// hang or never end when read like ordinary ones.
func hostileRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(root, "pipe"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	must(t, os.Symlink("/dev/zero", filepath.Join(root, "zero.txt")))
	l, err := net.Listen("unix", filepath.Join(root, "sock"))
	if err != nil {
		t.Skipf("unix socket: %v", err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("closing the socket: %v", err)
		}
	})
	return root
}

// callReturns runs fn and fails the test if it has not returned by the deadline: the files
// under test would block a plain read forever.
func callReturns[T any](t *testing.T, fn func(ctx context.Context) T) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	done := make(chan T, 1)
	go func() { done <- fn(ctx) }()
	select {
	case v := <-done:
		return v
	case <-ctx.Done():
		t.Fatal("read_file blocked")
		panic("unreachable")
	}
}

func TestRunRefusesNonRegularFiles(t *testing.T) {
	root := hostileRoot(t)
	tests := []struct {
		path, kind string
	}{
		{"pipe", "a named pipe (FIFO)"},
		{"zero.txt", "a character device"},
		{"sock", "a socket"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			ui := &toolstest.UI{Answer: tools.Answer{Approved: true}}
			env := &tools.Env{Files: &toolstest.Files{Dir: root}, UI: ui}
			type out struct {
				res tools.Result
				err error
			}
			got := callReturns(t, func(ctx context.Context) out {
				res, err := New().Run(ctx, env, tools.Call{Name: Name, Params: map[string]string{"path": tc.path}})
				return out{res, err}
			})
			must(t, got.err)
			want := tc.path + " is " + tc.kind + ". Only regular files can be read"
			if !got.res.IsError || !strings.Contains(got.res.Text, want) {
				t.Errorf("result = %+v, want an error containing %q", got.res, want)
			}
			if len(ui.Approvals) != 0 {
				t.Error("the user was asked about a read that cannot succeed")
			}
		})
	}
}

// TestReadRefusesSwappedFile covers a file replaced by a FIFO or device between the check
// before the approval and the read after it.
func TestReadRefusesSwappedFile(t *testing.T) {
	root := hostileRoot(t)
	for _, name := range []string{"pipe", "zero.txt", "sock"} {
		t.Run(name, func(t *testing.T) {
			type out struct {
				res tools.Result
				err error
			}
			got := callReturns(t, func(ctx context.Context) out {
				res, err := read(ctx, filepath.Join(root, name), name, "", lineRange{}, DefaultLineLimit)
				return out{res, err}
			})
			must(t, got.err)
			if !got.res.IsError || !strings.Contains(got.res.Text, "Only regular files can be read") {
				t.Errorf("result = %+v", got.res)
			}
		})
	}
}

func TestReadHonoursContext(t *testing.T) {
	root := fixtureRoot(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := read(ctx, filepath.Join(root, "main.go"), "main.go", ".go", lineRange{}, DefaultLineLimit); err == nil {
		t.Error("a cancelled read succeeded")
	}
}
