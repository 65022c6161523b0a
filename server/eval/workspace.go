package eval

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
)

// hidden are the exercise folders the agent never sees: .meta holds the reference solution
// and .docs the instructions (the task text carries those).
var hidden = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{".meta": true, ".docs": true}
}}

// Prepare makes dir a fresh workspace for the exercise: a copy of its folder without .meta and
// .docs, writable (the dataset may be read-only), with skipped tests switched on, committed as
// the first commit of a new git repository.
func Prepare(ctx context.Context, ex Exercise, dir string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	err := filepath.WalkDir(ex.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(ex.Dir, path)
		if err != nil {
			return err
		}
		if top := strings.Split(filepath.ToSlash(rel), "/")[0]; hidden.Get()[top] {
			return filepath.SkipDir
		}
		target := filepath.Join(dir, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type().IsRegular():
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			return os.WriteFile(target, b, 0o644)
		}
		return nil // links and the like are not part of an exercise
	})
	if err != nil {
		return fmt.Errorf("copying %s: %w", ex.Key(), err)
	}
	if err := RestoreTests(ex, dir); err != nil {
		return err
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.name=cairn eval", "-c", "user.email=eval@cairn.invalid", "-c", "commit.gpgsign=false",
			"commit", "-q", "--no-verify", "-m", "Exercise " + ex.Key()},
	} {
		cmd := exec.CommandContext(ctx, "git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s in %s: %w: %s", args[len(args)-1], dir, err, bytes.TrimSpace(out))
		}
	}
	return nil
}

// RestoreTests writes the exercise's test files into dir as the dataset has them, with skipped
// tests switched on (see enableSkipped): what the agent changed in them does not count.
func RestoreTests(ex Exercise, dir string) error {
	for _, rel := range ex.Test {
		b, err := os.ReadFile(filepath.Join(ex.Dir, rel))
		if err != nil {
			return fmt.Errorf("exercise %s: test file: %w", ex.Key(), err)
		}
		target := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		// A test file the agent deleted or replaced by a folder is restored too.
		if fi, err := os.Lstat(target); err == nil && !fi.Mode().IsRegular() {
			if err := os.RemoveAll(target); err != nil {
				return err
			}
		}
		if err := os.WriteFile(target, enableSkipped(ex.Language, b), 0o644); err != nil {
			return fmt.Errorf("restoring %s: %w", rel, err)
		}
	}
	return nil
}

// enableSkipped turns the skipped tests of a test file into tests, as Aider's harness does:
// JavaScript's xtest becomes test and Java's @Disabled annotations go; Rust's ignored tests run
// through cargo's --include-ignored and C++'s through EXERCISM_RUN_ALL_TESTS instead.
func enableSkipped(lang string, b []byte) []byte {
	switch lang {
	case "javascript":
		return bytes.ReplaceAll(b, []byte("xtest("), []byte("test("))
	case "java":
		return javaDisabled.Get().ReplaceAll(javaDisabledLine.Get().ReplaceAll(b, nil), nil)
	}
	return b
}

// javaDisabledLine is a line holding only a JUnit @Disabled annotation (with its reason);
// javaDisabled is one beside other code on its line.
var (
	javaDisabledLine = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[ \t]*@Disabled(\([^)]*\))?[ \t]*\r?\n`) }}
	javaDisabled     = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`@Disabled(\([^)]*\))?[ \t]*`) }}
)
