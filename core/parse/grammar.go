package parse

import (
	"sort"

	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/toolnames"
)

// Grammar maps each tool name to the names of its parameters. Only these tags are markup:
// everything else is text. The caller includes task_progress in every tool's list.
type Grammar map[string][]string

// TaskProgress is the parameter every tool accepts (the focus-chain checklist).
const TaskProgress = toolnames.TaskProgress

// rawParams names the parameters whose values are file bytes rather than prose: they keep
// their whitespace (losing only one leading and one trailing newline) and end at the last
// closing tag of their name before the tool closes, so a file may contain that closing tag.
var rawParams = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		toolnames.WriteToFile:   "content",
		toolnames.ReplaceInFile: "diff",
	}
}}

// DefaultGrammar returns every Cairn tool with its parameters, task_progress included. The
// map is fresh: callers may extend it (for example with tools added by a mode).
func DefaultGrammar() Grammar {
	g := Grammar{
		toolnames.ExecuteCommand:          {"command", "requires_approval", "timeout"},
		toolnames.ReadFile:                {"path", "start_line", "end_line"},
		toolnames.WriteToFile:             {"path", "content"},
		toolnames.ReplaceInFile:           {"path", "diff"},
		toolnames.SearchFiles:             {"path", "regex", "file_pattern"},
		toolnames.ListFiles:               {"path", "recursive"},
		toolnames.ListCodeDefinitionNames: {"path"},
		toolnames.BrowserAction:           {"action", "url", "coordinate", "text"},
		toolnames.UseMCPTool:              {"server_name", "tool_name", "arguments"},
		toolnames.AccessMCPResource:       {"server_name", "uri"},
		toolnames.AskFollowupQuestion:     {"question", "options"},
		toolnames.AttemptCompletion:       {"result", "command"},
		toolnames.NewTask:                 {"context"},
		toolnames.PlanModeRespond:         {"response", "needs_more_exploration"},
		toolnames.LoadMCPDocumentation:    {},
		toolnames.Condense:                {"context"},
		toolnames.NewRule:                 {"path", "content"},
		toolnames.WebFetch:                {"url"},
	}
	for name, params := range g {
		g[name] = append(params, TaskProgress)
	}
	return g
}

// tag kinds tell the scanner what a matched tag does in the current state.
type tagKind uint8

const (
	tagToolOpen   tagKind = iota // <tool> in text
	tagToolClose                 // </tool> at tool level
	tagParamOpen                 // <param> at tool level
	tagParamClose                // </param> inside that parameter
	tagRawClose                  // </content> or </diff>: a (possibly tentative) end of the raw value
)

type tag struct {
	text  string
	kind  tagKind
	tool  *toolSpec // tagToolOpen
	param int       // tagParamOpen: index into toolSpec.params
}

type paramSpec struct {
	name string
	raw  bool
	// ends lists the tags that end the value: its own closing tag, and once the raw value of
	// the tool has tentatively closed, endsPending adds the raw closing tag (a later one moves
	// the raw value's end past this parameter, which then becomes part of the raw value).
	ends, endsPending []tag
}

// toolSpec is one tool of the grammar with its tags prepared, so scanning never builds
// strings.
type toolSpec struct {
	name   string
	params []paramSpec
	raw    int // index of the raw parameter, or -1
	// level lists the tags recognised inside the tool outside any parameter; pending is the
	// same after the raw value has (tentatively) closed: its opening tag is no longer markup,
	// and its closing tag may move the end of the value.
	level, pending []tag
	rawClose       tag
	rawEnds        []tag // just rawClose: what ends the raw value before its first close
}

// compiled is a Grammar ready for scanning.
type compiled struct {
	open []tag // every tool's opening tag, in name order
}

func compile(g Grammar) *compiled {
	names := make([]string, 0, len(g))
	for name := range g {
		names = append(names, name)
	}
	sort.Strings(names)
	c := &compiled{}
	for _, name := range names {
		t := &toolSpec{name: name, raw: -1}
		seen := map[string]bool{}
		for _, p := range g[name] {
			if seen[p] {
				continue
			}
			seen[p] = true
			ps := paramSpec{name: p, raw: rawParams.Get()[name] == p}
			ps.ends = []tag{{text: "</" + p + ">", kind: tagParamClose}}
			if ps.raw {
				t.raw = len(t.params)
				t.rawClose = tag{text: "</" + p + ">", kind: tagRawClose}
				t.rawEnds = []tag{t.rawClose}
			}
			t.params = append(t.params, ps)
		}
		for i := range t.params {
			if t.raw >= 0 {
				t.params[i].endsPending = []tag{t.params[i].ends[0], t.rawClose}
			}
		}
		closeTag := tag{text: "</" + name + ">", kind: tagToolClose}
		for i, p := range t.params {
			open := tag{text: "<" + p.name + ">", kind: tagParamOpen, param: i}
			t.level = append(t.level, open)
			if i != t.raw {
				t.pending = append(t.pending, open)
			}
		}
		t.level = append(t.level, closeTag)
		t.pending = append(t.pending, closeTag)
		if t.raw >= 0 {
			t.pending = append(t.pending, t.rawClose)
		}
		c.open = append(c.open, tag{text: "<" + name + ">", kind: tagToolOpen, tool: t})
	}
	return c
}
