package checkpoint

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/wine"
)

// userGit runs git in dir the way a user would (own repository, isolated config).
func userGit(t testing.TB, dir string, args ...string) string {
	t.Helper()
	needGit(t)
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	env := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	cmd.Env = append(env, "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@example.com", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return string(out)
}

// writeFiles writes path → content below root.
func writeFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t testing.TB, root, p string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
	if err != nil {
		return "", false
	}
	return string(b), true
}

// treeHash fingerprints every entry below dir: paths, modes, sizes, contents, link targets
// and modification times. Equal hashes mean the folder was not touched.
func treeHash(t testing.TB, dir string) string {
	t.Helper()
	h := sha256.New()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		st, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		line := rel + "|" + st.Mode().String() + "|" + st.ModTime().String()
		switch {
		case st.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			line += "|->" + target
		case st.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s := sha256.Sum256(b)
			line += "|" + hex.EncodeToString(s[:])
		}
		lines = append(lines, line)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	for _, l := range lines {
		h.Write([]byte(l + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// trackedIn lists the files snapshotted in checkpoint hash.
func trackedIn(t testing.TB, m *Manager, hash string) []string {
	t.Helper()
	out, err := m.git.run(context.Background(), nil, "ls-tree", "-r", "-z", "--name-only", hash)
	if err != nil {
		t.Fatal(err)
	}
	return splitZ(out)
}

// isolateHome points HOME at a fresh folder so the workspace under t.TempDir is not refused.
func isolateHome(t testing.TB) string {
	t.Helper()
	needGit(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	return home
}

func newManager(t *testing.T, ws string, opts ...Option) *Manager {
	t.Helper()
	needGit(t)
	m, err := New(context.Background(), t.TempDir(), ws, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mustClose(t, m) })
	return m
}

// mustClose closes c and fails the test when that reports an error.
func mustClose(t testing.TB, c io.Closer) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

func commit(t *testing.T, m *Manager) string {
	t.Helper()
	h, err := m.Commit(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// needGit steps aside under Wine when the prefix has no git; anywhere else a missing git fails
// the test that needs it, as checkpoints need git.
func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		wine.Skip(t, "the Wine prefix has no git for Windows")
	}
}

// oddNames are file names that git and glob patterns read specially, as the platform allows
// them: Windows forbids * and ? in a name and drops a trailing space.
func oddNames() []string {
	if runtime.GOOS == "windows" {
		return []string{"weird [name] #1.txt", "with ~tilde!.txt"}
	}
	return []string{"trailing space.txt ", "weird [name]*?.txt"}
}
