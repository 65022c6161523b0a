package modes

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

// The model-facing refusals (docs/conventions.md, "Comments and model-facing text"), split
// on first use: package initialisers run in every process of the binary
// (docs/performance.md, P5).
var (
	//go:embed refusals.md
	refusalsMD string
	refusals   = lazy.Value[tools.Sections]{New: func() tools.Sections { return tools.ParseSections(refusalsMD) }}
)

// Tools of the conversation itself, which every mode has: finishing, asking and changing
// the mode (docs/modes.md, "What Cairn enforces").
var everyMode = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		toolnames.AttemptCompletion:   true,
		toolnames.AskFollowupQuestion: true,
		toolnames.SwitchMode:          true,
		toolnames.PlanModeRespond:     true,
		toolnames.Condense:            true,
		toolnames.NewTask:             true,
	}
}}

// GroupOf returns the group a tool belongs to, or "" for a tool every mode has.
func GroupOf(s tools.Spec) Group {
	if everyMode.Get()[s.Name] {
		return ""
	}
	if s.Name == toolnames.Delegate {
		return GroupDelegate
	}
	switch s.Category {
	case tools.CategoryRead:
		return GroupRead
	case tools.CategoryEdit:
		return GroupEdit
	case tools.CategoryCommand:
		return GroupCommand
	case tools.CategoryBrowser, tools.CategoryLocal:
		return GroupBrowser
	case tools.CategoryMCP:
		return GroupMCP
	}
	return "" // the interact tools not listed above are the conversation's too
}

// Offers reports whether the mode offers the tool to the model.
func (m Mode) Offers(s tools.Spec) bool {
	g := GroupOf(s)
	return g == "" || m.Has(g)
}

// Filter keeps the specs the mode offers, in order.
func (m Mode) Filter(specs []tools.Spec) []tools.Spec {
	out := make([]tools.Spec, 0, len(specs))
	for _, s := range specs {
		if m.Offers(s) {
			out = append(out, s)
		}
	}
	return out
}

// GroupNames lists the mode's groups for the model and the user ("read, edit").
func (m Mode) GroupNames() string {
	names := make([]string, len(m.Groups))
	for i, g := range m.Groups {
		names[i] = string(g)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// ToolRefusal is the model's result for a tool the mode does not have.
func (m Mode) ToolRefusal(tool string) string {
	return refusals.Get().Format("tool", tool, m.Name, m.Slug, m.GroupNames())
}

// EditRefusal is the model's result for an edit of rel outside the mode's pattern, or "" when
// the mode may edit it. rel is relative to its workspace root; outside every root it is "".
func (m Mode) EditRefusal(rel string) string {
	if m.editRE == nil {
		return ""
	}
	if rel != "" && m.editRE.MatchString(rel) {
		return ""
	}
	if rel == "" {
		rel = "a path outside the workspace"
	}
	note := ""
	if m.EditPatternNote != "" {
		note = fmt.Sprintf(" (%s)", m.EditPatternNote)
	}
	return refusals.Get().Format("edit", m.Name, rel, m.EditPattern, note)
}

// CommandDropped is the note added to a completion whose demonstration command the mode may
// not run.
func (m Mode) CommandDropped() string { return refusals.Get().Format("completion-command", m.Name) }
