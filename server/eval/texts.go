package eval

import (
	_ "embed"
	"strings"
	"text/template"

	"github.com/cairnhq/cairn/core/lazy"
)

// The texts the model reads (the task, the test feedback, a refused approval) are in .md files
// next to this one.
var (
	//go:embed task.md
	taskText string
	//go:embed feedback.md
	feedbackText string
	//go:embed refused.md
	refusedText string

	taskTmpl = lazy.Value[*template.Template]{New: func() *template.Template {
		return template.Must(template.New("task").Parse(taskText))
	}}
	feedbackTmpl = lazy.Value[*template.Template]{New: func() *template.Template {
		return template.Must(template.New("feedback").Parse(feedbackText))
	}}
	refusedTmpl = lazy.Value[*template.Template]{New: func() *template.Template {
		return template.Must(template.New("refused").Parse(refusedText))
	}}
)

// FeedbackLines is how many lines of a failed test run go back to the model (Aider's number).
const FeedbackLines = 50

// testCommand is how the tests are run, as told to an agentic run's model.
var testCommand = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"go":         "go test ./...",
		"python":     "python3 -m pytest",
		"rust":       "cargo test -- --include-ignored",
		"javascript": "npm test",
		"cpp":        "cmake -DEXERCISM_RUN_ALL_TESTS=1 -S . -B build && cmake --build build",
		"java":       "gradle test --offline",
	}
}}

// TaskText is the task an exercise starts with: the line "Exercise: NAME (LANGUAGE)", the
// instructions, then which files to edit and that the tests must not change.
func TaskText(ex Exercise, agentic bool) (string, error) {
	instructions, err := ex.Instructions()
	if err != nil {
		return "", err
	}
	return render(taskTmpl.Get(), map[string]any{"Name": ex.Name, "Language": ex.Language, "Instructions": instructions,
		"Solution": fileList(ex.Solution), "Tests": fileList(ex.Test), "Agentic": agentic, "Command": testCommand.Get()[ex.Language]})
}

// FeedbackText is the user's answer after a failed test run: its last FeedbackLines lines.
func FeedbackText(ex Exercise, output string) string {
	return render0(feedbackTmpl.Get(), map[string]any{"Output": tail(output, FeedbackLines), "Solution": fileList(ex.Solution)})
}

func refusal(what string) string {
	return render0(refusedTmpl.Get(), map[string]any{"What": what})
}

func fileList(files []string) string {
	quoted := make([]string, len(files))
	for i, f := range files {
		quoted[i] = "`" + f + "`"
	}
	switch len(quoted) {
	case 1:
		return quoted[0]
	case 2:
		return quoted[0] + " and " + quoted[1]
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " and " + quoted[len(quoted)-1]
}

func render(t *template.Template, data any) (string, error) {
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// render0 renders a template whose data always fits it (the map keys are fixed here).
func render0(t *template.Template, data any) string {
	s, err := render(t, data)
	if err != nil {
		panic("eval: " + err.Error())
	}
	return s
}
