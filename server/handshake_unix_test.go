//go:build unix

package server_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/server"
)

// The handshake file a stopped daemon leaves as its spare is the file the next start writes
// into: no new file on the start's path (docs/performance.md, "P5 — the daemon at rest").
func TestHandshakeFileReusedAfterStop(t *testing.T) {
	dir := sharedDir(t)
	path := server.HandshakePath(dir)
	d1 := startShared(t, sharedConfig(dir))
	fi1 := holdOpen(t, path)
	d1.Stop()
	if fileExists(path) {
		t.Fatal("the handshake file is still there after stop")
	}
	d2 := startShared(t, sharedConfig(dir))
	fi2, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(fi1, fi2) {
		t.Error("the second start created a handshake file instead of reusing the spare")
	}
	if fi2.Mode().Perm() != 0o600 {
		t.Errorf("handshake file mode %v, want 0600", fi2.Mode().Perm())
	}
	got, err := server.ReadHandshakeFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != d2.Handshake() {
		t.Fatalf("handshake file %+v, daemon %+v", got, d2.Handshake())
	}
	if err := getState(t, got.Address, readToken(t, got.TokenFile)); err != nil {
		t.Fatalf("call with the file's token: %v", err)
	}
	assertNoHandshakeLeftovers(t, dir)
	// The second daemon's stop still takes its own file away.
	d2.Stop()
	if fileExists(path) {
		t.Fatal("the handshake file is still there after the second stop")
	}
}

// A spare that is not a plain file of ours is never written through: the start writes a new
// handshake file and the spare's target keeps its bytes.
func TestPlantedSpareNotWrittenThrough(t *testing.T) {
	const planted = `{"address":"unix:///elsewhere.sock","token_file":"/elsewhere","pid":1}` + "\n"
	tests := []struct {
		name  string
		plant func(t *testing.T, spare, target string)
	}{
		{"world readable", func(t *testing.T, spare, _ string) {
			writeMode(t, spare, planted, 0o644)
		}},
		{"a second link to a file elsewhere", func(t *testing.T, spare, target string) {
			writeMode(t, target, planted, 0o600)
			if err := os.Link(target, spare); err != nil {
				t.Fatal(err)
			}
		}},
		{"a symlink to a file elsewhere", func(t *testing.T, spare, target string) {
			writeMode(t, target, planted, 0o600)
			if err := os.Symlink(target, spare); err != nil {
				t.Fatal(err)
			}
		}},
		{"a folder", func(t *testing.T, spare, _ string) {
			if err := os.Mkdir(spare, 0o700); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := sharedDir(t)
			target := filepath.Join(t.TempDir(), "target")
			tt.plant(t, filepath.Join(dir, ".daemon.spare"), target)
			d := startShared(t, sharedConfig(dir))
			path := server.HandshakePath(dir)
			fi, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
				t.Fatalf("handshake file mode %v, want a regular 0600 file", fi.Mode())
			}
			if got, err := server.ReadHandshakeFile(path); err != nil || got != d.Handshake() {
				t.Fatalf("handshake file %+v (%v), daemon %+v", got, err, d.Handshake())
			}
			if fileExists(target) {
				if b, err := os.ReadFile(target); err != nil || string(b) != planted {
					t.Fatalf("the spare's target now holds %q (%v)", b, err)
				}
			}
			assertNoHandshakeLeftovers(t, dir)
		})
	}
}

func writeMode(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// assertNoHandshakeLeftovers fails when a file a handshake write made for itself is left.
func assertNoHandshakeLeftovers(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".daemon-") {
			t.Errorf("left beside the handshake file: %s", e.Name())
		}
	}
}

// A spare the start can neither use nor remove (a folder with something in it) does not stop
// the start, and what stays beside the handshake file is said in the log.
func TestUnremovableSpareIsLogged(t *testing.T) {
	dir := sharedDir(t)
	spare := filepath.Join(dir, ".daemon.spare")
	if err := os.MkdirAll(filepath.Join(spare, "inside"), 0o700); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	cfg := sharedConfig(dir)
	cfg.Logger = slog.New(slog.NewTextHandler(&log, nil))
	d := startShared(t, cfg)
	if got, err := server.ReadHandshakeFile(server.HandshakePath(dir)); err != nil || got != d.Handshake() {
		t.Fatalf("handshake file %+v (%v), daemon %+v", got, err, d.Handshake())
	}
	if !strings.Contains(log.String(), "left beside the handshake file") {
		t.Fatalf("log %q does not say what was left", log.String())
	}
}

// A socket path that is not UTF-8 cannot be named in the handshake's JSON: the start says so
// and leaves nothing behind. An executable path that is not UTF-8 only drops out of the
// handshake (said in the log), and the daemon serves.
func TestHandshakeWithPathsNotUTF8(t *testing.T) {
	dir := sharedDir(t)
	bad := filepath.Join(dir, "s\xff")
	if err := os.Mkdir(bad, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := sharedConfig(dir)
	cfg.Socket = filepath.Join(bad, "d.sock")
	_, err := server.Start(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "address") {
		t.Fatalf("Start on a socket path that is not UTF-8 = %v, want an error naming the address", err)
	}
	for _, p := range []string{cfg.Socket, server.HandshakePath(dir)} {
		if _, err := os.Lstat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%q after the refused start: %v", p, err)
		}
	}

	exe := filepath.Join(bad, "cairn")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	cfg = sharedConfig(dir)
	cfg.Executable = exe
	cfg.Logger = slog.New(slog.NewTextHandler(&logged, nil))
	d := startShared(t, cfg)
	if got := d.Handshake().Executable; got != "" {
		t.Errorf("handshake executable = %q, want it left out", got)
	}
	found, err := server.FindDaemon(dir)
	if err != nil || found != d.Handshake() {
		t.Fatalf("FindDaemon = %+v, %v; want %+v", found, err, d.Handshake())
	}
	if !strings.Contains(logged.String(), "not UTF-8") {
		t.Errorf("log does not say the executable was left out:\n%s", logged.String())
	}
}
