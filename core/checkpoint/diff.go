package checkpoint

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Diff returns the files that differ between checkpoint from and checkpoint to, or the
// working tree when to is "" (the working tree seen through the same excludes as Commit).
// Contents are returned whole; binary files come through as bytes in a string.
func (m *Manager) Diff(ctx context.Context, from, to string) ([]FileDiff, error) {
	if err := m.Err(); err != nil {
		return nil, err
	}
	if err := m.repo.lock(ctx); err != nil {
		return nil, err
	}
	defer m.repo.unlock()
	fromHash, err := m.checkHash(ctx, from)
	if err != nil {
		return nil, err
	}
	args := []string{"diff", "--name-status", "-z", "--no-renames", "--no-ext-diff", "--no-textconv"}
	toHash := ""
	if to == "" {
		if err := m.stage(ctx); err != nil {
			return nil, fmt.Errorf("checkpoints: diff: %w", err)
		}
		args = append(args, "--cached", fromHash)
	} else {
		if toHash, err = m.checkHash(ctx, to); err != nil {
			return nil, err
		}
		args = append(args, fromHash, toHash)
	}
	out, err := m.git.run(ctx, nil, args...)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: diff: %w", err)
	}
	fields := splitZ(out)
	var diffs []FileDiff
	var before, after []string // blob specs to read, parallel to diffs ("" = none)
	for i := 0; i+1 < len(fields); i += 2 {
		status, path := fields[i], fields[i+1]
		d := FileDiff{Path: path}
		b, a := fromHash+":"+path, ""
		switch status[0] {
		case 'A':
			b = ""
			a = "new"
		case 'D':
		default:
			a = "new"
		}
		if a != "" && toHash != "" {
			a = toHash + ":" + path
		}
		diffs = append(diffs, d)
		before = append(before, b)
		after = append(after, a)
	}
	blobs, err := m.readBlobs(ctx, append(append([]string(nil), before...), after...))
	if err != nil {
		return nil, fmt.Errorf("checkpoints: diff: %w", err)
	}
	for i := range diffs {
		diffs[i].Before = blobs[before[i]]
		switch {
		case after[i] == "new": // working tree
			diffs[i].After, err = m.readWorking(diffs[i].Path)
			if err != nil {
				return nil, fmt.Errorf("checkpoints: diff: %w", err)
			}
		case after[i] != "":
			diffs[i].After = blobs[after[i]]
		}
	}
	return diffs, nil
}

// readWorking reads a workspace file as git stores it (a symlink is its target).
func (m *Manager) readWorking(p string) (string, error) {
	full := filepath.Join(m.root, filepath.FromSlash(p))
	st, err := os.Lstat(full)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil // deleted since staging
	}
	if err != nil {
		return "", err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return os.Readlink(full)
	}
	b, err := os.ReadFile(full)
	return string(b), err
}

// readBlobs reads "rev:path" objects through one cat-file process; "" and "new" are skipped.
func (m *Manager) readBlobs(ctx context.Context, specs []string) (map[string]string, error) {
	out := map[string]string{}
	var batch []string
	for _, s := range specs {
		if s == "" || s == "new" {
			continue
		}
		if strings.ContainsAny(s, "\n") {
			// Batch input is line-based; such a path is read on its own.
			b, err := m.git.run(ctx, nil, "cat-file", "blob", s)
			if err != nil {
				return nil, err
			}
			out[s] = string(b)
			continue
		}
		batch = append(batch, s)
	}
	if len(batch) == 0 {
		return out, nil
	}
	in := strings.Join(batch, "\n") + "\n"
	raw, err := m.git.run(ctx, strings.NewReader(in), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	r := bufio.NewReader(bytes.NewReader(raw))
	for _, s := range batch {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("cat-file: short output for %s", s)
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			continue // "<spec> missing": nothing to show
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return nil, fmt.Errorf("cat-file: bad header %q", header)
		}
		buf := make([]byte, n+1) // content and its newline
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("cat-file: %w", err)
		}
		out[s] = string(buf[:n])
	}
	return out, nil
}

// Restore makes the workspace's files what they were at checkpoint hash: changed files are
// rewritten and files created since are deleted. Excluded paths (ignored, dependency folders,
// nested repositories, large files) are left alone. History and the task are untouched; the
// latest checkpoint stays HEAD, so later checkpoints remain comparable.
func (m *Manager) Restore(ctx context.Context, hash string) error {
	if err := m.Err(); err != nil {
		return err
	}
	if err := m.repo.lock(ctx); err != nil {
		return err
	}
	defer m.repo.unlock()
	target, err := m.checkHash(ctx, hash)
	if err != nil {
		return err
	}
	// Staging first puts files created since into the index, so the reset deletes them.
	if err := m.stage(ctx); err != nil {
		return fmt.Errorf("checkpoints: restore: %w", err)
	}
	head, err := m.git.run(ctx, nil, "rev-parse", "HEAD")
	if err != nil {
		return fmt.Errorf("checkpoints: restore: %w", err)
	}
	if _, err := m.git.run(ctx, nil, "reset", "-q", "--hard", target); err != nil {
		return fmt.Errorf("checkpoints: restore: %w", err)
	}
	if _, err := m.git.run(ctx, nil, "reset", "-q", "--soft", strings.TrimSpace(string(head))); err != nil {
		return fmt.Errorf("checkpoints: restore: %w", err)
	}
	return nil
}
