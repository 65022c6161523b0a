package prompt

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
)

// TestToolDefinitions renders the function definitions of the test tools to a golden file and
// checks each is a schema the API takes: an object with string properties and the spec's
// required parameters.
func TestToolDefinitions(t *testing.T) {
	specs := testSpecs()
	defs := ToolDefinitions(specs, true)
	if len(defs) != len(specs) {
		t.Fatalf("%d definitions for %d specs", len(defs), len(specs))
	}
	var b strings.Builder
	for i, d := range defs {
		var sc struct {
			Type       string
			Properties map[string]struct{ Type, Description string }
			Required   []string
		}
		if err := json.Unmarshal(d.Parameters, &sc); err != nil {
			t.Fatalf("%s: %v", d.Name, err)
		}
		if d.Name != specs[i].Name || d.Description == "" || sc.Type != "object" {
			t.Errorf("%s: name %q, description %q, type %q", specs[i].Name, d.Name, d.Description, sc.Type)
		}
		var required []string
		for _, p := range specs[i].Params {
			if p.Required {
				required = append(required, p.Name)
			}
			if prop, ok := sc.Properties[p.Name]; !ok || prop.Type != "string" || prop.Description == "" {
				t.Errorf("%s.%s: property %+v", d.Name, p.Name, prop)
			}
		}
		if strings.Join(sc.Required, ",") != strings.Join(required, ",") {
			t.Errorf("%s: required %v, want %v", d.Name, sc.Required, required)
		}
		if _, ok := sc.Properties["task_progress"]; !ok {
			t.Errorf("%s: no task_progress", d.Name)
		}
		b.WriteString("## " + d.Name + "\n" + d.Description + "\n" + string(d.Parameters) + "\n\n")
	}
	golden.File(t, filepath.Join("testdata", "tooldefs.golden"), b.String())
	for _, d := range ToolDefinitions(specs[:1], false) {
		if strings.Contains(string(d.Parameters), "task_progress") {
			t.Error("task_progress offered with the focus chain off")
		}
	}
}
