package shell

import (
	"embed"
	"fmt"
	"strings"
	"text/template"

	"github.com/cairnhq/cairn/core/lazy"
)

//go:embed execute_command.md commands.md
var textFS embed.FS

// texts holds the model-facing text. It is parsed on first use rather than at every process
// start; a broken template fails the first test that renders it.
var texts = lazy.Value[*template.Template]{New: func() *template.Template {
	return template.Must(template.ParseFS(textFS, "execute_command.md", "commands.md"))
}}

// render executes the named block. The blocks are fixed and tested, so a failure is a bug in
// this package; it is reported in the text instead of crashing the daemon.
func render(name string, data any) string {
	var b strings.Builder
	if err := texts.Get().ExecuteTemplate(&b, name, data); err != nil {
		return "internal error rendering " + name + ": " + err.Error()
	}
	return strings.TrimSpace(b.String())
}

// resultData feeds the result.* blocks.
type resultData struct {
	ID      int // the command's number in the task
	Code    int
	Seconds int
	Output  string
}

// rowData feeds the row.* blocks: the chat's notes about a command.
type rowData struct {
	ID      int
	Command string
	Code    int
	Why     string
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

// omittedData feeds the "omitted" block: the note standing for the middle of a long output.
type omittedData struct {
	Lines  int    // lines left out
	From   int    // the first of them (1-based line number in the whole output)
	Size   string // their size, for people
	Path   string // the file holding the whole output, "" when none
	Failed string // why the whole output could not be saved, "" when it was or none was wanted
}

// humanSize writes n bytes the way people read sizes.
func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
