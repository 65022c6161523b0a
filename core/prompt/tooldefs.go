package prompt

import (
	_ "embed"
	"encoding/json"
	"strings"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/tools"
)

//go:embed native/task_progress.md
var taskProgressMD string

// ToolDefinitions turns the offered tools' specs into function definitions for a model that
// calls tools natively: every parameter is a string (what the tools parse, as in XML), and
// the descriptions are the specs' own. focusChain adds the optional task_progress parameter
// to every tool, as the XML prompt does.
func ToolDefinitions(specs []tools.Spec, focusChain bool) []llm.ToolDef {
	type property struct {
		Type        string `json:"type"`
		Description string `json:"description,omitempty"`
	}
	type schema struct {
		Type       string              `json:"type"`
		Properties map[string]property `json:"properties"`
		Required   []string            `json:"required,omitempty"`
	}
	out := make([]llm.ToolDef, 0, len(specs))
	for _, s := range specs {
		sc := schema{Type: "object", Properties: map[string]property{}}
		for _, p := range s.Params {
			sc.Properties[p.Name] = property{Type: "string", Description: strings.TrimSpace(p.Description)}
			if p.Required {
				sc.Required = append(sc.Required, p.Name)
			}
		}
		if focusChain {
			sc.Properties[tools.TaskProgressParam] = property{Type: "string", Description: strings.TrimSpace(taskProgressMD)}
		}
		// Properties marshal in sorted key order, so the definitions are byte-stable from one
		// request to the next (prompt caching).
		raw, err := json.Marshal(sc)
		if err != nil { // fixed shapes of strings: cannot fail
			raw = []byte(`{"type":"object","properties":{}}`)
		}
		out = append(out, llm.ToolDef{Name: s.Name, Description: strings.TrimSpace(s.Description), Parameters: raw})
	}
	return out
}
