package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

// recorder is a tool that records the calls that reach it.
type recorder struct {
	spec  tools.Spec
	calls []tools.Call
}

func (r *recorder) Spec() tools.Spec { return r.spec }
func (r *recorder) Run(_ context.Context, _ *tools.Env, c tools.Call) (tools.Result, error) {
	r.calls = append(r.calls, c)
	return tools.Result{Text: "ran"}, nil
}

// TestModeGate: in a mode without commands a command never reaches its tool and a completion
// loses its command; an edit outside the pattern never reaches its tool; ACT is not held.
func TestModeGate(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".cairn", "modes")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "docs.md"), []byte("---\ngroups: [read, edit]\nfileRegex: \\.md$\n---\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	shell := &recorder{spec: tools.Spec{Name: toolnames.ExecuteCommand, Category: tools.CategoryCommand}}
	done := &recorder{spec: tools.Spec{Name: toolnames.AttemptCompletion, Category: tools.CategoryInteract}}
	write := &recorder{spec: tools.Spec{Name: toolnames.WriteToFile, Category: tools.CategoryEdit}}
	reg := holdToModes(tools.NewRegistry(shell, done, write), modeCatalog{roots: []string{root}}, nil)
	run := func(mode, name string, params map[string]string) tools.Result {
		tool, _ := reg.Get(name)
		res, err := tool.Run(context.Background(), &tools.Env{Mode: mode}, tools.Call{Name: name, Params: params})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := run("docs", toolnames.ExecuteCommand, map[string]string{"command": "touch x"}); !res.IsError || len(shell.calls) != 0 {
		t.Fatalf("the command ran in the docs mode: %+v", res)
	}
	run("docs", toolnames.AttemptCompletion, map[string]string{"result": "ok", "command": "open x"})
	if _, has := done.calls[0].Params["command"]; has || done.calls[0].Params["result"] != "ok" {
		t.Fatalf("the completion reached its tool as %+v", done.calls[0].Params)
	}
	// Without a workspace (nil Files) the path resolves to nothing, which never matches.
	if res := run("docs", toolnames.WriteToFile, map[string]string{"path": "main.go"}); !res.IsError || !strings.Contains(res.Text, `\.md$`) || len(write.calls) != 0 {
		t.Fatalf("the edit ran: %+v", res)
	}
	if got := reg.OfferedSpecsIn("docs"); len(got) != 2 || got[0].Name != toolnames.AttemptCompletion {
		t.Fatalf("offered in docs: %+v", got)
	}
	run("act", toolnames.ExecuteCommand, map[string]string{"command": "true"})
	if len(shell.calls) != 1 || len(reg.OfferedSpecsIn("act")) != 3 {
		t.Fatal("ACT is held to a mode")
	}
}
