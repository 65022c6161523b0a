package shell

import (
	"embed"
	"strings"
	"text/template"
)

//go:embed execute_command.md
var textFS embed.FS

// texts holds the model-facing text; it is parsed at start-up so a broken template fails every
// test of the package rather than a user's task.
var texts = template.Must(template.ParseFS(textFS, "execute_command.md"))

// render executes the named block. The blocks are fixed and tested, so a failure is a bug in
// this package; it is reported in the text instead of crashing the daemon.
func render(name string, data any) string {
	var b strings.Builder
	if err := texts.ExecuteTemplate(&b, name, data); err != nil {
		return "internal error rendering " + name + ": " + err.Error()
	}
	return strings.TrimSpace(b.String())
}

// resultData feeds the result.* blocks.
type resultData struct {
	Code    int
	Seconds int
	Output  string
}

// outputData is what the "output" block shows: a lead line and the output, or a sentence
// saying there was none.
type outputData struct {
	Lead, None, Output string
}

// With lets a block choose its own wording for the output section.
func (d resultData) With(lead, none string) outputData {
	return outputData{Lead: lead, None: none, Output: d.Output}
}
