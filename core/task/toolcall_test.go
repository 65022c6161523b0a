package task

import (
	"context"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/tools"
)

// The tool call's steps (core/task/toolcall) on a bare task: no model, no store, no workspace.

// editTool is an edit tool that fails while fail is set, counting its runs.
type editTool struct {
	runs *int
	fail *bool
}

func (editTool) Spec() tools.Spec {
	return tools.Spec{Name: "edit_tool", Description: "Edits.", Category: tools.CategoryEdit, ArgParam: "path",
		Params: []tools.Param{{Name: "path", Required: true}}}
}

func (e editTool) Run(context.Context, *tools.Env, tools.Call) (tools.Result, error) {
	*e.runs++
	if *e.fail {
		return tools.Result{Text: "no match", IsError: true}, nil
	}
	return tools.Result{Text: "edited"}, nil
}

func TestToolCallSteps(t *testing.T) {
	runs, fail := 0, false
	tk := newTask(store.Meta{ID: "steps"}, Deps{Registry: tools.NewRegistry(editTool{&runs, &fail})}, nil)
	call := func(name string, params map[string]string) (string, ending) {
		t.Helper()
		out, end := (&runLoop{parts: tk.parts}).runTool(context.Background(), parse.Block{Type: parse.ToolUse, Name: name, Params: params})
		if len(out) == 0 {
			return "", end
		}
		return out[0].Text, end
	}
	mistakes := func() int {
		return tk.guards.Mistakes()
	}

	// An unknown tool ends at the look-up, as a mistake.
	if text, _ := call("nope", nil); !strings.HasPrefix(text, "[nope] Result:") || mistakes() != 1 {
		t.Fatalf("unknown tool: %q, %d mistakes", text, mistakes())
	}
	// A missing parameter ends at validation, as a mistake, with an error row; the tool never runs.
	text, _ := call("edit_tool", map[string]string{})
	if !strings.HasPrefix(text, "[edit_tool for ''] Result:") || mistakes() != 2 || runs != 0 {
		t.Fatalf("missing path: %q, %d mistakes, %d runs", text, mistakes(), runs)
	}
	if ms := tk.Messages(); len(ms) == 0 || ms[len(ms)-1].Kind != msg.SayError {
		t.Errorf("no error row for the missing parameter: %+v", ms)
	}
	// A call that works runs the tool, ends the run of mistakes and gives its result.
	if text, end := call("edit_tool", map[string]string{"path": "a.go"}); text != "[edit_tool for 'a.go'] Result:\nedited" || end != 0 || mistakes() != 0 || runs != 1 {
		t.Fatalf("working call: %q end %d, %d mistakes, %d runs", text, end, mistakes(), runs)
	}
	// Failed edits of one file: the third in a row counts one mistake and tells the model.
	fail = true
	for i := 1; i <= 3; i++ {
		text, _ = call("edit_tool", map[string]string{"path": "a.go"})
		if want := min(i/3, 1); mistakes() != want {
			t.Fatalf("failed edit %d: %d mistakes, want %d", i, mistakes(), want)
		}
	}
	if !strings.Contains(text, "no match") || !strings.Contains(text, prompt.EditFailedRepeatedly("a.go")) {
		t.Errorf("third failed edit: %q, want the error and the repeated failure noted", text)
	}
	// In PLAN mode a call that may change files is refused before it runs, and is no mistake.
	if err := tk.SetMode(ModePlan); err != nil {
		t.Fatal(err)
	}
	text, _ = call("edit_tool", map[string]string{"path": "b.go"})
	if runs != 4 || mistakes() != 1 || !strings.HasPrefix(text, "[edit_tool for 'b.go'] Result:") {
		t.Fatalf("PLAN mode: %q, %d runs, %d mistakes", text, runs, mistakes())
	}
}
