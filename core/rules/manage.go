package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Create writes a new rule file named name with content and returns it (enabled). With global
// set it goes in globalDir; otherwise in the workspace's rules folder under root: an existing
// `.cairnrules/` or `.clinerules/` folder, else a new `.cairnrules/`. A `.clinerules` or
// `.cairnrules` FILE is never converted or touched. name must be a plain, non-hidden file
// name; ".md" is added when it has no extension. An existing file is never overwritten
// (ErrExists).
func Create(root, globalDir string, global bool, name, content string) (Rule, error) {
	name, err := cleanName(name)
	if err != nil {
		return Rule{}, err
	}
	var (
		dir, base string
		kind      Source
	)
	if global {
		if globalDir == "" {
			return Rule{}, fmt.Errorf("%w: global rules folder", ErrNoDir)
		}
		dir, base, kind = globalDir, globalDir, SourceGlobal
	} else {
		if root == "" {
			return Rule{}, fmt.Errorf("%w: workspace root", ErrNoDir)
		}
		dir, kind, err = workspaceRulesDir(root)
		if err != nil {
			return Rule{}, err
		}
		base = root
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Rule{}, fmt.Errorf("rules: create folder: %w", err)
	}
	abs := filepath.Join(dir, name)
	f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return Rule{}, fmt.Errorf("%w: %s", ErrExists, name)
	}
	if err != nil {
		return Rule{}, fmt.Errorf("rules: create: %w", err)
	}
	body := strings.TrimSpace(content) + "\n"
	_, werr := f.WriteString(body)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		_ = os.Remove(abs) // a half-written rule would be loaded as if complete
		return Rule{}, fmt.Errorf("rules: write: %w", werr)
	}
	rel, _ := filepath.Rel(base, abs) // abs was built under base
	relSlash := filepath.ToSlash(rel)
	return Rule{
		ID: string(kind) + ":" + relSlash, Source: kind, Path: abs, Name: relSlash,
		Content: strings.TrimSpace(content), Enabled: true,
	}, nil
}

// Delete removes the rule file with that ID. Only a file that Load would list for root and
// globalDir can be deleted, so an ID can never name a path outside the rule locations.
func Delete(root, globalDir, id string) error {
	rules, err := Load(root, globalDir, nil)
	for _, r := range rules {
		if r.ID != id {
			continue
		}
		if err := os.Remove(r.Path); err != nil {
			return fmt.Errorf("rules: delete %s: %w", r.Name, err)
		}
		return nil
	}
	if err != nil {
		// The rule may be among the files that could not be read.
		return fmt.Errorf("%w: %s (%w)", ErrUnknownID, id, err)
	}
	return fmt.Errorf("%w: %s", ErrUnknownID, id)
}

// workspaceRulesDir picks the folder new workspace rules go in.
func workspaceRulesDir(root string) (string, Source, error) {
	candidates := []struct {
		rel  string
		kind Source
	}{{".cairnrules", SourceCairnrules}, {".clinerules", SourceClinerules}}
	for _, c := range candidates {
		if info, err := os.Stat(filepath.Join(root, c.rel)); err == nil && info.IsDir() {
			return filepath.Join(root, c.rel), c.kind, nil
		}
	}
	for _, c := range candidates {
		if _, err := os.Lstat(filepath.Join(root, c.rel)); errors.Is(err, fs.ErrNotExist) {
			return filepath.Join(root, c.rel), c.kind, nil
		}
	}
	return "", "", fmt.Errorf("%w: .cairnrules and .clinerules are both files, not folders", ErrNoDir)
}

// cleanName validates a rule file name and adds ".md" when it has no extension.
func cleanName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.HasPrefix(name, ".") || strings.ContainsAny(name, `/\`) ||
		!filepath.IsLocal(name) || strings.ContainsRune(name, 0) {
		return "", fmt.Errorf("%w: %q", ErrBadName, name)
	}
	if filepath.Ext(name) == "" {
		name += ".md"
	}
	return name, nil
}
