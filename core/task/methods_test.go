package task

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxTaskMethods is the most methods Task may have. Task is the orchestrator: new behaviour
// goes to the owner whose state it changes, not to Task (docs/task-runtime.md, "The rule"), so
// this number only ever goes down.
const maxTaskMethods = 28

// TestTaskStaysSmall counts every method declared with the receiver Task or *Task in the
// package's own files (exported or not: reflection sees only the exported ones).
func TestTaskStaysSmall(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var methods []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) == 0 {
				continue
			}
			recv := fd.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			if id, ok := recv.(*ast.Ident); ok && id.Name == "Task" {
				methods = append(methods, name+": "+fd.Name.Name)
			}
		}
	}
	if len(methods) > maxTaskMethods {
		t.Errorf("Task has %d methods, more than %d: give the new behaviour to an owner under core/task/ (docs/task-runtime.md)\n%s",
			len(methods), maxTaskMethods, strings.Join(methods, "\n"))
	}
}
