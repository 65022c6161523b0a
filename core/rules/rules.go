// Package rules finds, reads, creates and deletes the user's rule files and workflows, and
// decides which rules apply to a task.
//
// Rules are standing instructions the system prompt carries in USER'S CUSTOM INSTRUCTIONS
// (docs/prompt.md). They come from a global folder and from well-known names in the workspace:
// `.clinerules` and `.cairnrules` (a file, or a folder read recursively without its
// `workflows/` and `skills/` subfolders), `.cursorrules`, `.cursor/rules/*.mdc`,
// `.windsurfrules`, and `AGENTS.md` at the root and in nested folders. Workflows are the files
// in `workflows/` of the two rules folders and in a global workflows folder; each is invoked as
// a slash command named after its file.
//
// Which rules apply (ForTask, Select) depends on the files the task touched: the caller passes
// their paths (core/agent takes the `path` of every read_file, write_to_file, replace_in_file,
// list_files, search_files and list_code_definition_names call in the task's history, and
// every @file or @folder mention in the user's messages). Paths outside the workspace root
// count for nothing; a touched folder counts as itself.
//
//   - The root AGENTS.md always applies. A nested AGENTS.md applies when it is the nearest one
//     to at least one touched path (the AGENTS.md convention: the closer file wins for the files
//     under it); its Folder lets the prompt say which files it covers.
//   - A rule whose YAML frontmatter has `paths:` (globs relative to the workspace root, matched
//     with doublestar; a glob without "/" matches the base name at any depth) applies only when
//     a touched path matches. A .mdc file's `globs:` work the same way unless `alwaysApply:
//     true`; a .mdc file with neither applies always, as before. Frontmatter is not shown to
//     the model. Frontmatter that does not parse keeps the rule whole and applying always, with
//     Problem set.
//
// Every rule and workflow has a stable ID (source kind + path relative to its base folder) so
// that toggles survive the workspace moving on disk. Anything not switched off is enabled; a
// switched-off AGENTS.md is as if absent, so the next one up applies in its place.
//
// The loop re-reads rules before every request, so a Loader keeps file contents cached by
// modification time and size: a request costs a directory walk and a stat per file. ForTask
// looks for AGENTS.md only in the root and the folders of touched paths; Load, for the rules
// list, searches the whole workspace (hidden folders and node_modules left out).
package rules

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Source is the kind of place a rule comes from. It is the first half of a rule's ID.
type Source string

// Rule sources, in the order Load returns them and the prompt renders them.
const (
	SourceGlobal      Source = "global"        // the global rules folder
	SourceClinerules  Source = "clinerules"    // .clinerules file or folder
	SourceCairnrules  Source = "cairnrules"    // .cairnrules file or folder
	SourceCursorrules Source = "cursorrules"   // .cursorrules file
	SourceCursorDir   Source = "cursor-rules"  // .cursor/rules/**/*.mdc
	SourceWindsurf    Source = "windsurfrules" // .windsurfrules file
	SourceAgents      Source = "agents"        // AGENTS.md at the root and in nested folders
)

// agentsFile is the shared rules file many coding agents read.
const agentsFile = "AGENTS.md"

// Rule is one rule file.
type Rule struct {
	// ID is Source + ":" + Name, e.g. "clinerules:.clinerules/style.md" or "global:go.md".
	ID     string
	Source Source
	// Path is the absolute file path.
	Path string
	// Name is the slash-separated path relative to the workspace root (".cursorrules",
	// ".clinerules/testing/go.md") or, for global rules, relative to the global folder.
	Name    string
	Content string
	Enabled bool
	// Paths are the workspace-relative globs of a conditional rule (frontmatter `paths:`, or
	// `globs:` of a .mdc file without `alwaysApply: true`); empty means always.
	Paths []string
	// Folder is, for an AGENTS.md, the slash folder it covers relative to the root ("" for
	// the root one).
	Folder string
	// Problem says what is wrong with the file (bad frontmatter), "" when nothing is. Such a
	// rule is still loaded, applying everywhere.
	Problem string
}

// Workflow is one workflow file, invoked as `/<Name>`.
type Workflow struct {
	// ID is "workflow:" + root-relative path or "global-workflow:" + file name.
	ID string
	// Name is the file name, e.g. "release.md"; it is also the slash command.
	Name    string
	Path    string
	Content string
	Global  bool
	Enabled bool
}

// workspaceSource describes one rule location under a workspace root.
type workspaceSource struct {
	kind Source
	rel  string // slash path relative to the root
	// file and folder say which shapes the location may take.
	file, folder bool
	// ext, when set, keeps only files with this extension inside a folder.
	ext string
}

var workspaceSources = []workspaceSource{
	{kind: SourceClinerules, rel: ".clinerules", file: true, folder: true},
	{kind: SourceCairnrules, rel: ".cairnrules", file: true, folder: true},
	{kind: SourceCursorrules, rel: ".cursorrules", file: true},
	{kind: SourceCursorDir, rel: ".cursor/rules", folder: true, ext: ".mdc"},
	{kind: SourceWindsurf, rel: ".windsurfrules", file: true},
}

// workflowsDir is the subfolder of a rules folder that holds workflows, not rules.
const workflowsDir = "workflows"

// notRules are the subfolders of a rules folder that hold something other than rules:
// workflows, skills (core/skills), and hook scripts (core/hooks), which are programs, never
// prompt text.
var notRules = []string{workflowsDir, "skills", "hooks"}

// Loader reads rules and workflows, caching file contents by modification time and size.
// It is safe for concurrent use; a daemon keeps one for all workspaces.
type Loader struct {
	// mu guards cache.
	mu    sync.Mutex
	cache map[string]cachedFile
}

type cachedFile struct {
	mod     time.Time
	size    int64
	content string
	binary  bool
}

// maxCached bounds the cache; past it the cache starts over (rule files are few, so this
// only matters for a pathological global folder).
const maxCached = 2048

// NewLoader returns a Loader with an empty cache.
func NewLoader() *Loader {
	return &Loader{cache: map[string]cachedFile{}}
}

// Load reads every rule once, without caching. Long-lived callers use a Loader.
func Load(root, globalDir string, toggles map[string]bool) ([]Rule, error) {
	return NewLoader().Load(root, globalDir, toggles)
}

// Workflows lists workflows once, without caching. Long-lived callers use a Loader.
func Workflows(root, globalDir string, toggles map[string]bool) ([]Workflow, error) {
	return NewLoader().Workflows(root, globalDir, toggles)
}

// Load returns the rules of the global folder globalDir and of the workspace at root, global
// first, then in the order of the Source constants; files of a folder come sorted by path, and
// AGENTS.md files by path with the root one first. Every AGENTS.md in the workspace is listed
// (folders that are hidden or named node_modules are not searched). Either folder may be "" to
// skip it; missing files are simply absent. Binary files and hidden entries inside rules
// folders are skipped. Enabled is toggles[ID], true when absent. Unreadable files are reported
// in the joined error; the rules that could be read are returned with it. Load does not decide
// which rules apply to a task: ForTask does.
func (l *Loader) Load(root, globalDir string, toggles map[string]bool) ([]Rule, error) {
	agents, err := findAgents(root)
	rs, lerr := l.load(root, globalDir, toggles, agents)
	return rs, errors.Join(err, lerr)
}

// ForTask returns the enabled rules that apply to a task that has touched the given paths
// (absolute, or relative to root): see Relative and Select. Only the AGENTS.md files at the
// root and in the folders holding a touched path are read, so a request does not walk the
// workspace.
func (l *Loader) ForTask(root, globalDir string, toggles map[string]bool, touched []string) ([]Rule, error) {
	rel := Relative(root, touched)
	rs, err := l.load(root, globalDir, toggles, agentsNear(root, rel))
	return Select(rs, rel), err
}

// load reads the global rules, the workspace's well-known rule files and the given AGENTS.md
// files (absolute paths, in order).
func (l *Loader) load(root, globalDir string, toggles map[string]bool, agents []string) ([]Rule, error) {
	var (
		out  []Rule
		errs []error
	)
	add := func(kind Source, base, abs string) {
		rel, err := filepath.Rel(base, abs)
		if err != nil {
			errs = append(errs, fmt.Errorf("rules: %w", err))
			return
		}
		content, ok, err := l.read(abs)
		if err != nil {
			errs = append(errs, err)
			return
		}
		if !ok {
			return
		}
		name := filepath.ToSlash(rel)
		id := string(kind) + ":" + name
		r := Rule{ID: id, Source: kind, Path: abs, Name: name, Content: content, Enabled: enabled(toggles, id)}
		applyFrontmatter(&r, kind == SourceCursorDir)
		if kind == SourceAgents {
			if r.Folder = path.Dir(name); r.Folder == "." {
				r.Folder = ""
			}
		}
		out = append(out, r)
	}

	if globalDir != "" {
		files, err := listTree(globalDir, nil, "")
		errs = appendErr(errs, err)
		for _, f := range files {
			add(SourceGlobal, globalDir, f)
		}
	}
	if root != "" {
		for _, src := range workspaceSources {
			abs := filepath.Join(root, filepath.FromSlash(src.rel))
			info, err := os.Stat(abs)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				continue
			case err != nil:
				errs = append(errs, fmt.Errorf("rules: %w", err))
				continue
			case info.IsDir() && src.folder:
				files, err := listTree(abs, notRules, src.ext)
				errs = appendErr(errs, err)
				for _, f := range files {
					add(src.kind, root, f)
				}
			case info.Mode().IsRegular() && src.file:
				add(src.kind, root, abs)
			}
		}
		for _, f := range agents {
			add(SourceAgents, root, f)
		}
	}
	return out, errors.Join(errs...)
}

// Workflows returns the workflows of the workspace at root (`.cairnrules/workflows/`, then
// `.clinerules/workflows/`) and of the global workflows folder globalDir, sorted by name. A
// workspace workflow hides a global one of the same name, and `.cairnrules` wins over
// `.clinerules`. Only regular, non-hidden, non-binary files directly in those folders count.
func (l *Loader) Workflows(root, globalDir string, toggles map[string]bool) ([]Workflow, error) {
	type place struct {
		dir, base string
		global    bool
	}
	var places []place
	if root != "" {
		for _, d := range []string{".cairnrules", ".clinerules"} {
			places = append(places, place{dir: filepath.Join(root, d, workflowsDir), base: root})
		}
	}
	if globalDir != "" {
		places = append(places, place{dir: globalDir, base: globalDir, global: true})
	}

	var (
		out  []Workflow
		errs []error
		seen = map[string]bool{}
	)
	for _, p := range places {
		if info, err := os.Stat(p.dir); err != nil || !info.IsDir() {
			continue // absent, or a .clinerules file rather than a folder
		}
		entries, err := os.ReadDir(p.dir)
		if err != nil {
			errs = append(errs, fmt.Errorf("rules: %w", err))
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if seen[name] || strings.HasPrefix(name, ".") {
				continue
			}
			abs := filepath.Join(p.dir, name)
			if !isRegular(abs, e) {
				continue
			}
			content, ok, err := l.read(abs)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if !ok {
				continue
			}
			seen[name] = true
			id := "global-workflow:" + name
			if !p.global {
				rel, _ := filepath.Rel(p.base, abs) // abs was built under base
				id = "workflow:" + filepath.ToSlash(rel)
			}
			out = append(out, Workflow{ID: id, Name: name, Path: abs, Content: content, Global: p.global, Enabled: enabled(toggles, id)})
		}
	}
	slices.SortFunc(out, func(a, b Workflow) int { return strings.Compare(a.Name, b.Name) })
	return out, errors.Join(errs...)
}

// read returns a file's content (trimmed of surrounding blank space), or ok=false for a binary
// file. Content is reused while the file's modification time and size are unchanged.
func (l *Loader) read(abs string) (string, bool, error) {
	info, err := os.Stat(abs)
	if err != nil {
		return "", false, fmt.Errorf("rules: %w", err)
	}
	l.mu.Lock()
	c, hit := l.cache[abs]
	l.mu.Unlock()
	if hit && c.size == info.Size() && c.mod.Equal(info.ModTime()) {
		return c.content, !c.binary, nil
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return "", false, fmt.Errorf("rules: %w", err)
	}
	c = cachedFile{mod: info.ModTime(), size: info.Size()}
	if bytes.IndexByte(data, 0) >= 0 {
		c.binary = true
	} else {
		data = bytes.TrimPrefix(data, []byte("\uFEFF"))
		c.content = strings.TrimSpace(strings.ReplaceAll(string(data), "\r\n", "\n"))
	}
	l.mu.Lock()
	if len(l.cache) >= maxCached {
		l.cache = map[string]cachedFile{}
	}
	l.cache[abs] = c
	l.mu.Unlock()
	return c.content, !c.binary, nil
}

// listTree lists the regular files under dir, sorted by path, skipping hidden entries, the
// top-level subfolders named in skipTop and, when ext is set, files without that extension.
// Symlinked files are followed; symlinked folders are not (no cycles).
func listTree(dir string, skipTop []string, ext string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == dir && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return err
		}
		if path == dir {
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if filepath.Dir(path) == dir && slices.Contains(skipTop, name) {
				return fs.SkipDir
			}
			return nil
		}
		if ext != "" && filepath.Ext(name) != ext {
			return nil
		}
		if isRegular(path, d) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return files, fmt.Errorf("rules: %w", err)
	}
	return files, nil
}

// isRegular reports whether the entry is a regular file, following a symlink.
func isRegular(path string, d fs.DirEntry) bool {
	if d.Type().IsRegular() {
		return true
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}

func enabled(toggles map[string]bool, id string) bool {
	on, ok := toggles[id]
	return !ok || on
}

func appendErr(errs []error, err error) []error {
	if err != nil {
		return append(errs, err)
	}
	return errs
}
