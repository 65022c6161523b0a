package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

//go:embed default_excludes.gitignore
var defaultExcludes string

// User ignore files at the workspace root, in the order their patterns apply (later wins).
var userIgnoreFiles = []string{".clineignore", ".cairnignore"}

// includeDirective pulls another file's patterns into a user ignore file.
const includeDirective = "!include "

const skipListFile = "cairn-skipped.json"

// skipList is what checkpoints leave out beyond the ignore rules: nested repositories
// (folders holding their own .git) and files over the size limit. Kept in the shadow
// repository so later Managers exclude them from the start.
type skipList struct {
	Nested map[string]bool  `json:"nested"` // folder paths, slash-separated
	Large  map[string]int64 `json:"large"`  // file path → size seen
}

func loadSkipList(gitDir string) skipList {
	s := skipList{Nested: map[string]bool{}, Large: map[string]int64{}}
	if b, err := os.ReadFile(filepath.Join(gitDir, skipListFile)); err == nil {
		_ = json.Unmarshal(b, &s) // a damaged list is rebuilt by the next Commit
	}
	if s.Nested == nil {
		s.Nested = map[string]bool{}
	}
	if s.Large == nil {
		s.Large = map[string]int64{}
	}
	return s
}

func (s skipList) clone() skipList {
	c := skipList{Nested: make(map[string]bool, len(s.Nested)), Large: make(map[string]int64, len(s.Large))}
	for k, v := range s.Nested {
		c.Nested[k] = v
	}
	for k, v := range s.Large {
		c.Large[k] = v
	}
	return c
}

func (s skipList) warnings() []string {
	var out []string
	for _, p := range sortedKeys(s.Nested) {
		out = append(out, fmt.Sprintf("%s/ is a separate git repository; checkpoints do not include it", p))
	}
	for _, p := range sortedKeys(s.Large) {
		out = append(out, fmt.Sprintf("%s is larger than the checkpoint limit (%.1f MB); checkpoints do not include it",
			p, float64(s.Large[p])/(1<<20)))
	}
	return out
}

// stage brings the shadow index to the workspace's current state: it refreshes the exclude
// file, finds new nested repositories and large files, drops newly excluded paths from the
// index and adds everything else. The caller holds the repository lock.
func (m *Manager) stage(ctx context.Context) error {
	m.mu.Lock()
	skip := m.skipped.clone()
	m.mu.Unlock()

	// Entries that no longer apply (repository removed, file shrunk or gone) are dropped.
	for p := range skip.Nested {
		if _, err := os.Lstat(filepath.Join(m.root, filepath.FromSlash(p), ".git")); err != nil {
			delete(skip.Nested, p)
		}
	}
	for p := range skip.Large {
		if st, err := os.Lstat(filepath.Join(m.root, filepath.FromSlash(p))); err != nil || st.Size() <= m.maxSize {
			delete(skip.Large, p)
		}
	}
	excludePath := filepath.Join(m.gitDir, "info", "exclude")
	old, _ := os.ReadFile(excludePath)
	if err := writeFile(excludePath, m.excludes(skip)); err != nil {
		return err
	}

	// New untracked paths: git lists a nested repository as "dir/".
	out, err := m.git.run(ctx, nil, "ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return err
	}
	grew := false
	for _, p := range splitZ(out) {
		if dir, ok := strings.CutSuffix(p, "/"); ok {
			if _, err := os.Lstat(filepath.Join(m.root, filepath.FromSlash(dir), ".git")); err == nil {
				skip.Nested[dir] = true
				grew = true
			}
			continue
		}
		if m.tooLarge(p) {
			skip.Large[p] = m.size(p)
			grew = true
		}
	}
	// Tracked files that grew past the limit: only a file changed since the last checkpoint
	// can have, and git finds those from the index's stat data without a read.
	out, err = m.git.run(ctx, nil, "ls-files", "--modified", "-z")
	if err != nil {
		return err
	}
	for _, p := range splitZ(out) {
		if m.tooLarge(p) {
			skip.Large[p] = m.size(p)
			grew = true
		}
	}
	content := m.excludes(skip)
	if grew {
		if err := writeFile(excludePath, content); err != nil {
			return err
		}
	}
	if b, err := json.Marshal(skip); err == nil {
		if err := writeFile(filepath.Join(m.gitDir, skipListFile), string(b)); err != nil {
			return err
		}
	}
	m.mu.Lock()
	m.skipped = skip
	m.mu.Unlock()

	// Paths the new rules exclude leave the index (never the disk).
	if !bytes.Equal(old, []byte(content)) {
		out, err := m.git.run(ctx, nil, "ls-files", "--cached", "--ignored", "--exclude-standard", "-z")
		if err != nil {
			return err
		}
		if paths := splitZ(out); len(paths) > 0 {
			if _, err := m.git.run(ctx, joinZ(paths), "rm", "--cached", "-q", "--ignore-unmatch",
				"--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
				return err
			}
		}
	}
	if _, err := m.git.run(ctx, nil, "add", "-A", "--ignore-errors"); err != nil {
		// Unreadable files are skipped (--ignore-errors) and the rest is staged; only a
		// cancelled or broken run fails the checkpoint.
		if ctx.Err() != nil || !isExitError(err) {
			return err
		}
	}
	return nil
}

// tooLarge reports a regular file above the limit; p is slash-separated.
func (m *Manager) tooLarge(p string) bool { return m.size(p) > m.maxSize }

func (m *Manager) size(p string) int64 {
	st, err := os.Lstat(filepath.Join(m.root, filepath.FromSlash(p)))
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	return st.Size()
}

// excludes renders the shadow repository's info/exclude: defaults, the user's ignore file,
// the data dir when it lies inside the workspace, then the skip list.
func (m *Manager) excludes(skip skipList) string {
	var b strings.Builder
	b.WriteString(defaultExcludes)
	for _, name := range userIgnoreFiles {
		data, err := os.ReadFile(filepath.Join(m.root, name))
		if err != nil {
			continue
		}
		b.WriteString("# From " + name + "\n")
		b.Write(m.resolveIncludes(data))
		b.WriteString("\n")
	}
	b.WriteString("# Cairn's own data\n")
	if m.dataRel != "" {
		b.WriteString("/" + escapePattern(m.dataRel) + "/\n")
	}
	b.WriteString("# Nested repositories\n")
	for _, p := range sortedKeys(skip.Nested) {
		b.WriteString("/" + escapePattern(p) + "/\n")
	}
	b.WriteString("# Files over the size limit\n")
	for _, p := range sortedKeys(skip.Large) {
		b.WriteString("/" + escapePattern(p) + "\n")
	}
	return b.String()
}

// resolveIncludes replaces `!include FILE` lines with that file's patterns (one level).
func (m *Manager) resolveIncludes(data []byte) []byte {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if inc, ok := strings.CutPrefix(line, includeDirective); ok {
			path := strings.TrimSpace(inc)
			if !filepath.IsAbs(path) {
				path = filepath.Join(m.root, path)
			}
			if b, err := os.ReadFile(path); err == nil {
				out.Write(b)
				out.WriteByte('\n')
			}
			continue
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// escapePattern quotes a literal path for gitignore syntax.
func escapePattern(p string) string {
	var b strings.Builder
	for _, r := range p {
		if strings.ContainsRune(`\*?[`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	s := b.String()
	trimmed := strings.TrimRight(s, " ")
	return trimmed + strings.Repeat(`\ `, len(s)-len(trimmed))
}

func isExitError(err error) bool {
	var exit interface{ ExitCode() int }
	return errors.As(err, &exit) && !errors.Is(err, fs.ErrNotExist)
}
