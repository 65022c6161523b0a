// Package modes reads the modes a task may run in (docs/modes.md): the built-in ACT, PLAN and
// Orchestrator, the mode files a team writes (`.cairn/modes/SLUG.md` in a workspace root and
// in the user's global modes folder) and Roo Code's `.roomodes` (YAML or JSON). A mode is a
// role with its own instructions, the tool groups it may use and an optional pattern the
// paths it edits must match, and optionally a model and reasoning effort of its own; Gate
// (gate.go) is how Cairn, not the model, holds a task to it.
//
// A file that does not parse, or says something that cannot be honoured (an unknown key or
// group, a pattern that is not a regular expression, a reasoning effort other than low, medium
// or high, a built-in's slug), is skipped with a Problem
// naming the file: one bad file never hides the others, and nothing here panics.
package modes

import (
	_ "embed"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/cairnhq/cairn/core/internal/mdsections"
	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/toolnames"
)

// Group is a family of tools a mode may use.
type Group string

// The groups. Read, edit, command, browser and mcp are Roo Code's; delegate (the delegate
// tool, which starts a subtask in another mode) is Cairn's.
const (
	GroupRead     Group = "read"
	GroupEdit     Group = "edit"
	GroupCommand  Group = "command"
	GroupBrowser  Group = "browser"
	GroupMCP      Group = "mcp"
	GroupDelegate Group = toolnames.Delegate
)

// allGroups is every group, in the order they are listed to the model and the user.
var allGroups = []Group{GroupRead, GroupEdit, GroupCommand, GroupBrowser, GroupMCP, GroupDelegate}

// The built-in modes' slugs. ACT and PLAN are the task runtime's own (core/task); the
// orchestrator is a mode like any other, shipped with Cairn.
const (
	Act          = "act"
	Plan         = "plan"
	Orchestrator = "orchestrator"
)

// Mode is one mode.
type Mode struct {
	// Slug names the mode everywhere: the file's name, `--mode`, switch_mode, delegate.
	Slug string
	// Name is what the picker shows.
	Name string
	// Description says when to use the mode (Roo's whenToUse); the orchestrator reads it to
	// pick a mode for a subtask.
	Description string
	// Role is who the agent is in this mode (Roo's roleDefinition).
	Role string
	// Instructions are the mode's own instructions (a mode file's body, Roo's
	// customInstructions).
	Instructions string
	// Groups are the tool groups the mode may use.
	Groups []Group
	// EditPattern, when set, is a regular expression every path the mode edits must match
	// (relative to its workspace root, slash-separated); EditPatternNote says what it means.
	EditPattern     string
	EditPatternNote string
	// Model, when set, answers the mode's requests: a model id of the task's provider ("":
	// the task's ACT model). ReasoningEffort, when set, is "low", "medium" or "high" and
	// replaces the settings' effort for the mode's requests (sent to models that take one).
	Model           string
	ReasoningEffort string
	// Source is the file the mode came from ("" for a built-in).
	Source string

	editRE *regexp.Regexp
}

// Has reports whether the mode may use group g.
func (m Mode) Has(g Group) bool { return slices.Contains(m.Groups, g) }

// BuiltIn reports whether the mode ships with Cairn.
func (m Mode) BuiltIn() bool { return m.Source == "" }

// MayEdit reports whether the mode may edit rel (relative to its root, slash-separated).
func (m Mode) MayEdit(rel string) bool {
	if !m.Has(GroupEdit) {
		return false
	}
	return m.editRE == nil || m.editRE.MatchString(rel)
}

// Problem is a mode file that was skipped, and why.
type Problem struct {
	Path string
	Err  string
}

func (p Problem) String() string { return p.Path + ": " + p.Err }

// Set is the modes of one workspace: the built-ins, then the global modes, then the
// workspace's (a later mode with the same slug replaces an earlier one, so a workspace's mode
// overrides a global one; ACT and PLAN cannot be replaced).
type Set struct {
	Modes    []Mode
	Problems []Problem
}

// Get returns the mode with that slug.
func (s Set) Get(slug string) (Mode, bool) {
	for _, m := range s.Modes {
		if m.Slug == slug {
			return m, true
		}
	}
	return Mode{}, false
}

// add puts m in the set, replacing a mode of the same slug; ACT and PLAN are refused.
func (s *Set) add(m Mode) {
	if m.Slug == Act || m.Slug == Plan {
		s.Problems = append(s.Problems, Problem{Path: m.Source, Err: fmt.Sprintf("%q is a built-in mode and cannot be redefined; the file is skipped", m.Slug)})
		return
	}
	for i := range s.Modes {
		if s.Modes[i].Slug == m.Slug {
			s.Modes[i] = m
			return
		}
	}
	s.Modes = append(s.Modes, m)
}

//go:embed builtin.md
var builtinMD string

// builtins are the modes Cairn ships. ACT and PLAN have no role or instructions of their own
// (the system prompt's ACT MODE V.S. PLAN MODE section is theirs); the orchestrator's come
// from builtin.md.
func builtins() []Mode {
	texts := mdsections.Split(builtinMD)
	return []Mode{
		{Slug: Act, Name: "Act", Description: texts["act"], Groups: allGroups[:5]},
		{Slug: Plan, Name: "Plan", Description: texts["plan"], Groups: allGroups[:5]},
		{Slug: Orchestrator, Name: "Orchestrator", Description: texts["orchestrator-when"],
			Role: texts["orchestrator-role"], Instructions: texts["orchestrator-instructions"],
			Groups: []Group{GroupRead, GroupDelegate}},
	}
}

// efforts are the reasoning efforts a mode may name (the settings' own: docs/settings.md).
var efforts = []string{"low", "medium", "high"}

// validSlug is what a slug may be: it names files and travels in flags and tool calls.
// Compiled on first use, as refusals are split.
var validSlug = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`) }}

// finish checks a mode read from src and compiles its pattern.
func finish(m Mode) (Mode, error) {
	m.Slug = strings.TrimSpace(m.Slug)
	if !validSlug.Get().MatchString(m.Slug) {
		return m, fmt.Errorf("%w: slug %q (lower-case letters, digits and dashes)", ErrInvalid, m.Slug)
	}
	if strings.TrimSpace(m.Name) == "" {
		m.Name = m.Slug
	}
	seen := map[Group]bool{}
	var groups []Group
	for _, g := range m.Groups {
		g = Group(strings.ToLower(strings.TrimSpace(string(g))))
		if !slices.Contains(allGroups, g) {
			return m, fmt.Errorf("%w: unknown group %q (read, edit, command, browser, mcp, delegate)", ErrInvalid, g)
		}
		if !seen[g] {
			seen[g] = true
			groups = append(groups, g)
		}
	}
	m.Groups = groups
	if m.EditPattern != "" {
		re, err := regexp.Compile(m.EditPattern)
		if err != nil {
			return m, fmt.Errorf("%w: fileRegex %q is not a regular expression: %w", ErrInvalid, m.EditPattern, err)
		}
		m.editRE = re
	}
	m.Model = strings.TrimSpace(m.Model)
	if strings.ContainsFunc(m.Model, unicode.IsSpace) {
		return m, fmt.Errorf("%w: model %q (a model id has no spaces)", ErrInvalid, m.Model)
	}
	m.ReasoningEffort = strings.ToLower(strings.TrimSpace(m.ReasoningEffort))
	if m.ReasoningEffort != "" && !slices.Contains(efforts, m.ReasoningEffort) {
		return m, fmt.Errorf("%w: reasoningEffort %q (low, medium or high)", ErrInvalid, m.ReasoningEffort)
	}
	m.Description, m.Role, m.Instructions = strings.TrimSpace(m.Description), strings.TrimSpace(m.Role), strings.TrimSpace(m.Instructions)
	return m, nil
}
