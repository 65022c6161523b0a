// Package skills finds the user's skills: folders holding a SKILL.md whose YAML frontmatter
// gives a `name` and a `description`, whose body is the instructions, and whose other files
// (scripts, templates, references) come with it.
//
// Skills live in `.cairn/skills/`, `.clinerules/skills/` and `.claude/skills/` of the primary
// workspace root, and in a global skills folder; each direct subfolder with a SKILL.md is one
// skill. Only names and descriptions reach the system prompt; the use_skill tool loads a body
// when the model decides a skill fits the task, which keeps the prompt small however many
// skills there are.
//
// Every skill has a stable ID (source + folder path relative to its base) for its toggle;
// anything not switched off is enabled. A skill that cannot be used — no frontmatter, no
// description, a name an earlier skill already took — is still listed, with Problem saying
// why, so the settings view can show it; it is never offered to the model.
package skills

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/cairnhq/cairn/core/rules"
)

// Source is where a skill was found. It is the first half of a skill's ID.
type Source string

// Skill sources, in order of precedence: when two skills share a name, the first wins.
const (
	SourceCairn      Source = "cairn"      // .cairn/skills/
	SourceClinerules Source = "clinerules" // .clinerules/skills/
	SourceClaude     Source = "claude"     // .claude/skills/
	SourceGlobal     Source = "global"     // the global skills folder
)

// FileName is the file that makes a folder a skill.
const FileName = "SKILL.md"

// maxSkillBytes caps how much of a SKILL.md is read: a skill body is instructions, not data.
const maxSkillBytes = 256 << 10

// maxBundled caps the bundled files listed for one skill.
const maxBundled = 200

var workspaceDirs = []struct {
	source Source
	rel    string
}{
	{SourceCairn, ".cairn/skills"},
	{SourceClinerules, ".clinerules/skills"},
	{SourceClaude, ".claude/skills"},
}

// Skill is one skill folder.
type Skill struct {
	// ID is Source + ":" + the folder's slash path relative to the workspace root (or, for
	// global skills, to the global folder): "claude:.claude/skills/pdf", "global:release".
	ID     string
	Source Source
	// Name and Description come from the frontmatter.
	Name        string
	Description string
	// Dir is the skill's folder and Path its SKILL.md (absolute).
	Dir, Path string
	Enabled   bool
	// Problem says why the skill cannot be used ("" when it can).
	Problem string
}

// Usable reports whether the skill is offered to the model: enabled and without a problem.
func (s Skill) Usable() bool { return s.Enabled && s.Problem == "" }

// Find lists the skills of the workspace at root and of the global folder globalDir (either
// may be ""), in order of precedence, folders sorted by name within each place. Enabled is
// toggles[ID], true when absent. A skill whose name an earlier usable skill has already taken
// gets a Problem. Unreadable folders are reported in the joined error, alongside the skills
// that could be read.
func Find(root, globalDir string, toggles map[string]bool) ([]Skill, error) {
	type place struct {
		source    Source
		dir, base string
	}
	var places []place
	if root != "" {
		for _, d := range workspaceDirs {
			places = append(places, place{d.source, filepath.Join(root, filepath.FromSlash(d.rel)), root})
		}
	}
	if globalDir != "" {
		places = append(places, place{SourceGlobal, globalDir, globalDir})
	}
	var (
		out   []Skill
		errs  []error
		taken = map[string]string{} // name → ID of the skill that holds it
	)
	for _, p := range places {
		entries, err := os.ReadDir(p.dir)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) && p.source == SourceGlobal {
			continue
		}
		if err != nil {
			if info, serr := os.Stat(p.dir); serr == nil && !info.IsDir() {
				continue // a file where a folder was expected: nothing to find
			}
			errs = append(errs, fmt.Errorf("skills: %w", err))
			continue
		}
		for _, e := range entries {
			dir := filepath.Join(p.dir, e.Name())
			if strings.HasPrefix(e.Name(), ".") || !isDir(dir, e) {
				continue
			}
			file := filepath.Join(dir, FileName)
			if info, err := os.Stat(file); err != nil || !info.Mode().IsRegular() {
				continue
			}
			rel, err := filepath.Rel(p.base, dir)
			if err != nil {
				errs = append(errs, fmt.Errorf("skills: %w", err))
				continue
			}
			id := string(p.source) + ":" + filepath.ToSlash(rel)
			s := Skill{ID: id, Source: p.source, Dir: dir, Path: file, Enabled: enabled(toggles, id), Name: e.Name()}
			if _, body, err := s.read(); errors.Is(err, ErrInvalid) {
				s.Problem = FileName + " is not a text file"
			} else if err != nil {
				s.Problem = FileName + " cannot be read"
			} else if s.Name, s.Description, s.Problem = head(body, e.Name()); s.Problem == "" {
				if other, dup := taken[s.Name]; dup {
					s.Problem = fmt.Sprintf("another skill named %q (%s) takes precedence", s.Name, other)
				} else if s.Enabled {
					taken[s.Name] = id
				}
			}
			out = append(out, s)
		}
	}
	return out, errors.Join(errs...)
}

// Usable keeps the skills that are offered to the model.
func Usable(all []Skill) []Skill {
	var out []Skill
	for _, s := range all {
		if s.Usable() {
			out = append(out, s)
		}
	}
	return out
}

// Loaded is a skill's body and bundled files, what use_skill returns.
type Loaded struct {
	Skill
	// Body is SKILL.md without its frontmatter.
	Body string
	// Files are the other regular files of the skill folder (absolute, sorted), hidden ones
	// left out; at most maxBundled of them.
	Files []string
	// MoreFiles is set when files were left out past that cap.
	MoreFiles bool
	// Truncated is set when SKILL.md was longer than the part read.
	Truncated bool
}

// Load reads the skill's body and lists its bundled files.
func (s Skill) Load() (Loaded, error) {
	truncated, text, err := s.read()
	if err != nil {
		return Loaded{}, err
	}
	_, body, _ := rules.SplitFrontmatter(text)
	body = strings.TrimSpace(body)
	l := Loaded{Skill: s, Body: body, Truncated: truncated}
	err = filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == s.Dir {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || p == s.Path || !isRegular(p, d) {
			return nil
		}
		if len(l.Files) == maxBundled {
			l.MoreFiles = true
			return fs.SkipAll
		}
		l.Files = append(l.Files, p)
		return nil
	})
	if err != nil {
		return l, fmt.Errorf("skills: listing %s: %w", s.Name, err)
	}
	slices.Sort(l.Files)
	return l, nil
}

// read returns SKILL.md's text (BOM and CRLF normalised, capped at maxSkillBytes).
func (s Skill) read() (truncated bool, text string, err error) {
	f, err := os.Open(s.Path)
	if err != nil {
		return false, "", fmt.Errorf("skills: %w", err)
	}
	defer func() { _ = f.Close() }() // read-only: closing loses nothing
	data, err := io.ReadAll(io.LimitReader(f, maxSkillBytes+1))
	if err != nil {
		return false, "", fmt.Errorf("skills: reading %s: %w", FileName, err)
	}
	if len(data) > maxSkillBytes {
		data, truncated = data[:maxSkillBytes], true
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return false, "", fmt.Errorf("%w: %s is not a text file", ErrInvalid, s.Path)
	}
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	return truncated, strings.ReplaceAll(string(data), "\r\n", "\n"), nil
}

// header is the part of the frontmatter a skill needs.
type header struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// head reads name and description from a SKILL.md's frontmatter; problem says what is
// missing or wrong. A missing name falls back to the folder's name; a missing description is
// a problem: without one the model cannot tell when the skill fits.
func head(text, folder string) (name, description, problem string) {
	fm, _, ok := rules.SplitFrontmatter(text)
	if !ok {
		return folder, "", FileName + " has no frontmatter: start it with a `---` block giving name and description"
	}
	var h header
	if err := yaml.Unmarshal([]byte(fm), &h); err != nil {
		return folder, "", "the frontmatter is not valid YAML: " + err.Error()
	}
	name = strings.Join(strings.Fields(h.Name), " ")
	if name == "" {
		name = folder
	}
	description = strings.Join(strings.Fields(h.Description), " ")
	if description == "" {
		return name, "", "the frontmatter has no description: add one saying when the skill should be used"
	}
	return name, description, ""
}

func isDir(p string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

func isRegular(p string, d fs.DirEntry) bool {
	if d.Type().IsRegular() {
		return true
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular()
}

func enabled(toggles map[string]bool, id string) bool {
	on, ok := toggles[id]
	return !ok || on
}
