package modes

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/cairnhq/cairn/core/rules"
)

// Where modes are read from, relative to a workspace root.
const (
	// Dir holds one SLUG.md per mode.
	Dir = ".cairn/modes"
	// RooFile is Roo Code's modes file.
	RooFile = ".roomodes"
)

// Load returns the modes for a task in roots: the built-ins, the modes in globalDir (the
// user's global modes folder, "" for none), then each root's `.roomodes` and `.cairn/modes`
// (a later one replacing an earlier one of the same slug). Files it cannot use are skipped
// and named in Problems; a folder or file that does not exist is not a problem.
func Load(roots []string, globalDir string) Set {
	var s Set
	s.Modes = append(s.Modes, builtins()...)
	if globalDir != "" {
		s.readDir(globalDir)
	}
	for _, root := range roots {
		s.readRoo(filepath.Join(root, RooFile))
		s.readDir(filepath.Join(root, filepath.FromSlash(Dir)))
	}
	return s
}

// readDir reads every *.md file of dir as a mode file, in name order.
func (s *Set) readDir(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.Problems = append(s.Problems, Problem{Path: dir, Err: err.Error()})
		}
		return
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() && strings.EqualFold(filepath.Ext(e.Name()), ".md") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(dir, name)
		data, err := os.ReadFile(p)
		if err != nil {
			s.Problems = append(s.Problems, Problem{Path: p, Err: err.Error()})
			continue
		}
		m, err := ParseFile(strings.TrimSuffix(name, filepath.Ext(name)), string(data))
		if err != nil {
			s.Problems = append(s.Problems, Problem{Path: p, Err: err.Error() + "; the mode is skipped"})
			continue
		}
		m.Source = p
		s.add(m)
	}
}

// readRoo reads a .roomodes file, when there is one.
func (s *Set) readRoo(p string) {
	data, err := os.ReadFile(p)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			s.Problems = append(s.Problems, Problem{Path: p, Err: err.Error()})
		}
		return
	}
	ms, problems := ParseRoo(data)
	for _, pr := range problems {
		s.Problems = append(s.Problems, Problem{Path: p, Err: pr})
	}
	for _, m := range ms {
		m.Source = p
		s.add(m)
	}
}

// fileHeader is a mode file's front matter.
type fileHeader struct {
	Name           string   `yaml:"name"`
	Description    string   `yaml:"description"`
	WhenToUse      string   `yaml:"whenToUse"`
	Role           string   `yaml:"role"`
	Groups         []string `yaml:"groups"`
	FileRegex      string   `yaml:"fileRegex"`
	FileRegexDescr string   `yaml:"fileRegexDescription"`
	Model          string   `yaml:"model"`
	Effort         string   `yaml:"reasoningEffort"`
}

// ParseFile reads one mode file: slug is its name without `.md`, text its front matter
// (name, description, role, groups, fileRegex, fileRegexDescription, model, reasoningEffort;
// any other key is an error) and its body, the mode's instructions.
func ParseFile(slug, text string) (Mode, error) {
	header, body, ok := rules.SplitFrontmatter(strings.ReplaceAll(text, "\r\n", "\n"))
	if !ok {
		return Mode{}, fmt.Errorf("%w: no front matter (a mode file starts with a --- block naming at least its groups)", ErrInvalid)
	}
	var h fileHeader
	dec := yaml.NewDecoder(strings.NewReader(header))
	dec.KnownFields(true) // a misspelt key would otherwise be dropped without a word
	if err := dec.Decode(&h); err != nil && !errors.Is(err, io.EOF) {
		return Mode{}, fmt.Errorf("%w: front matter: %w", ErrInvalid, err)
	}
	m := Mode{Slug: slug, Name: h.Name, Description: firstOf(h.Description, h.WhenToUse), Role: h.Role,
		Instructions: body, EditPattern: h.FileRegex, EditPatternNote: h.FileRegexDescr, Model: h.Model, ReasoningEffort: h.Effort}
	for _, g := range h.Groups {
		m.Groups = append(m.Groups, Group(g))
	}
	return finish(m)
}

func firstOf(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// rooFile is Roo Code's `.roomodes`.
type rooFile struct {
	CustomModes []rooMode `yaml:"customModes" json:"customModes"`
}

type rooMode struct {
	Slug               string     `yaml:"slug" json:"slug"`
	Name               string     `yaml:"name" json:"name"`
	RoleDefinition     string     `yaml:"roleDefinition" json:"roleDefinition"`
	WhenToUse          string     `yaml:"whenToUse" json:"whenToUse"`
	Description        string     `yaml:"description" json:"description"`
	CustomInstructions string     `yaml:"customInstructions" json:"customInstructions"`
	Groups             []rooGroup `yaml:"groups" json:"groups"`
}

// rooGroup is a group name, or `[name, {fileRegex, description}]`.
type rooGroup struct {
	Name      string
	FileRegex string
	Note      string
}

type rooGroupOptions struct {
	FileRegex   string `yaml:"fileRegex" json:"fileRegex"`
	Description string `yaml:"description" json:"description"`
}

func (g *rooGroup) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		g.Name = n.Value
		return nil
	case yaml.SequenceNode:
		if len(n.Content) == 0 || len(n.Content) > 2 || n.Content[0].Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: a group is a name or [name, {fileRegex, description}]", n.Line)
		}
		g.Name = n.Content[0].Value
		if len(n.Content) == 2 {
			var o rooGroupOptions
			if err := n.Content[1].Decode(&o); err != nil {
				return fmt.Errorf("line %d: %w", n.Line, err)
			}
			g.FileRegex, g.Note = o.FileRegex, o.Description
		}
		return nil
	}
	return fmt.Errorf("line %d: a group is a name or [name, {fileRegex, description}]", n.Line)
}

func (g *rooGroup) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err == nil {
		g.Name = name
		return nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(b, &parts); err != nil || len(parts) == 0 || len(parts) > 2 {
		return errors.New("a group is a name or [name, {fileRegex, description}]")
	}
	if err := json.Unmarshal(parts[0], &g.Name); err != nil {
		return errors.New("a group's first element is its name")
	}
	if len(parts) == 2 {
		var o rooGroupOptions
		if err := json.Unmarshal(parts[1], &o); err != nil {
			return fmt.Errorf("group %q: %w", g.Name, err)
		}
		g.FileRegex, g.Note = o.FileRegex, o.Description
	}
	return nil
}

// ParseRoo reads a `.roomodes` file (JSON when it starts with `{`, YAML otherwise). Modes it
// cannot use are left out, each with a problem; a file that does not parse at all gives no
// modes and one problem.
func ParseRoo(data []byte) ([]Mode, []string) {
	var f rooFile
	var err error
	if t := strings.TrimSpace(string(data)); strings.HasPrefix(t, "{") {
		err = json.Unmarshal(data, &f)
	} else {
		err = yaml.Unmarshal(data, &f)
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("not a valid modes file: %v; its modes are skipped", err)}
	}
	var out []Mode
	var problems []string
	for i, r := range f.CustomModes {
		m := Mode{Slug: r.Slug, Name: r.Name, Role: r.RoleDefinition, Description: firstOf(r.WhenToUse, r.Description),
			Instructions: r.CustomInstructions}
		for _, g := range r.Groups {
			m.Groups = append(m.Groups, Group(g.Name))
			if strings.EqualFold(g.Name, string(GroupEdit)) && g.FileRegex != "" {
				m.EditPattern, m.EditPatternNote = g.FileRegex, g.Note
			}
		}
		m, err := finish(m)
		if err != nil {
			problems = append(problems, fmt.Sprintf("mode %d (%q): %v; the mode is skipped", i+1, r.Slug, err))
			continue
		}
		out = append(out, m)
	}
	return out, problems
}
