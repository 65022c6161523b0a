package toolcall

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/tools"
)

// The pipeline on its own, with hand-written stand-ins for the task's owners: what each step
// asks of them.

type fakes struct {
	planning  bool
	blocked   string // the PreToolUse hooks block with this text ("": they let it run)
	rows      []msg.Kind
	todo      string
	mistakes  int
	succeeded int
	awaited   int
	taken     int
	runs      int
	post      int
	ran       []string
}

func (f *fakes) Say(kind msg.Kind, _ string, _ msg.Payload, _ bool) int {
	f.rows = append(f.rows, kind)
	return len(f.rows) - 1
}
func (f *fakes) Update(int, func(*msg.Message))                                    {}
func (f *fakes) Mistake()                                                          { f.mistakes++ }
func (f *fakes) EditFailed(string) bool                                            { return false }
func (f *fakes) Succeeded(bool, string)                                            { f.succeeded++ }
func (f *fakes) ForgetRepeats()                                                    {}
func (f *fakes) AutoApproval(int, bool) bool                                       { return false }
func (f *fakes) UserApproved()                                                     {}
func (f *fakes) PostTool(context.Context, tools.Call, tools.Result, time.Duration) { f.post++ }
func (f *fakes) PreTool(context.Context, tools.Call) (bool, string) {
	return f.blocked != "", f.blocked
}
func (f *fakes) AwaitFirst(context.Context)                       { f.awaited++ }
func (f *fakes) Take(context.Context)                             { f.taken++ }
func (f *fakes) MarkChanges(context.Context, *msg.Completion)     {}
func (f *fakes) StopAll(context.Context, string)                  {}
func (f *fakes) Set(list string)                                  { f.todo = list }
func (f *fakes) Planning() bool                                   { return f.planning }
func (f *fakes) Native() bool                                     { return false }
func (f *fakes) Settings() config.Settings                        { return config.Default() }
func (f *fakes) Env(ui tools.UI) *tools.Env                       { return &tools.Env{UI: ui} }
func (f *fakes) ExpandUser(_ context.Context, s string) string    { return s }
func (f *fakes) Feedback(_ context.Context, s string) llm.Content { return llm.Text(s) }
func (f *fakes) ToolRan(_ context.Context, _, changed []string)   { f.ran = append(f.ran, changed...) }
func (f *fakes) Condensed(context.Context, string)                {}
func (f *fakes) Ask(context.Context, msg.Kind, string, msg.Payload, *msg.Why) (tools.Answer, int, error) {
	return tools.Answer{}, -1, nil
}

// writeTool changes a file and reports it.
type writeTool struct{ f *fakes }

func (writeTool) Spec() tools.Spec {
	return tools.Spec{Name: "write_tool", Description: "Writes.", Category: tools.CategoryEdit, ArgParam: "path",
		Params: []tools.Param{{Name: "path", Required: true}}}
}

func (w writeTool) Run(_ context.Context, _ *tools.Env, c tools.Call) (tools.Result, error) {
	w.f.runs++
	return tools.Result{Text: "written", Changed: []string{c.Params["path"]}}, nil
}

func TestRunSteps(t *testing.T) {
	cases := []struct {
		name     string
		planning bool
		blocked  string
		tool     string
		want     string // the start of the result the model reads
		runs     int
		mistakes int
		awaited  int // the first checkpoint awaited
		taken    int // checkpoints taken after
		ran      int // files reported changed
	}{
		{name: "runs", tool: "write_tool", want: "[write_tool for 'a.go'] Result:\nwritten", runs: 1, awaited: 1, taken: 1, ran: 1},
		{name: "unknown tool", tool: "nope", want: "[nope] Result:", mistakes: 1},
		{name: "PLAN mode", planning: true, tool: "write_tool", want: "[write_tool for 'a.go'] Result:"},
		{name: "hook blocks", blocked: "not now", tool: "write_tool", want: "[write_tool for 'a.go'] Result:\nnot now"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakes{planning: c.planning, blocked: c.blocked}
			d := Deps{Registry: tools.NewRegistry(writeTool{f}), Task: f, Chat: f, Guards: f, Hooks: f,
				Checkpoints: f, Background: f, Todo: f, Now: time.Now, Bug: func(string, any) {}}
			out, end := Run(context.Background(), d, parse.Block{Type: parse.ToolUse, Name: c.tool,
				Params: map[string]string{"path": "a.go", tools.TaskProgressParam: "- [ ] write"}})
			if end != 0 || len(out) == 0 || !strings.HasPrefix(out[0].Text, c.want) {
				t.Fatalf("got %+v end %d, want a result starting %q", out, end, c.want)
			}
			if f.runs != c.runs || f.mistakes != c.mistakes || f.awaited != c.awaited || f.taken != c.taken || len(f.ran) != c.ran {
				t.Errorf("runs %d, mistakes %d, first checkpoint awaited %d, taken %d, changed %v; want %d, %d, %d, %d, %d",
					f.runs, f.mistakes, f.awaited, f.taken, f.ran, c.runs, c.mistakes, c.awaited, c.taken, c.ran)
			}
			if f.todo != "- [ ] write" {
				t.Errorf("the todo list the call carried: %q", f.todo)
			}
		})
	}
}

// previewTool previews its calls, and panics on one whose path is "boom".
type previewTool struct {
	writeTool
	previews *int
}

func (p previewTool) Preview(_ context.Context, _ *tools.Env, c tools.Call) error {
	if c.Params["path"] == "boom" {
		panic("preview bug")
	}
	*p.previews++
	return nil
}

func TestPreview(t *testing.T) {
	cases := []struct {
		name     string
		planning bool
		path     string
		previews int
		awaited  int
		bugs     int
	}{
		{name: "ACT", path: "a.go", previews: 1, awaited: 1},
		{name: "PLAN refuses it: no preview", planning: true, path: "a.go"},
		{name: "a panic ends the preview only", path: "boom", awaited: 1, bugs: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakes{planning: c.planning}
			previews, bugs := 0, 0
			d := Deps{Registry: tools.NewRegistry(previewTool{writeTool{f}, &previews}), Task: f, Chat: f, Guards: f,
				Hooks: f, Checkpoints: f, Background: f, Todo: f, Now: time.Now, Bug: func(string, any) { bugs++ }}
			err := Preview(context.Background(), d, parse.Block{Type: parse.ToolUse, Name: "write_tool", Partial: true,
				Params: map[string]string{"path": c.path}})
			if err != nil || previews != c.previews || f.awaited != c.awaited || bugs != c.bugs || f.runs != 0 {
				t.Errorf("err %v, previews %d, first checkpoint awaited %d, bugs %d, runs %d; want %d, %d, %d, 0",
					err, previews, f.awaited, bugs, f.runs, c.previews, c.awaited, c.bugs)
			}
		})
	}
}
