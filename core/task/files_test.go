package task

import (
	"go/ast"
	"go/types"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/cairnhq/cairn/core/internal/wine"
)

// TestFilesUseEachOtherOneWay: the files of core/task use each other one way (docs/task-runtime.md,
// "The files of core/task"): a file refers to what another declares (a type, a function, a
// method, a field, a constant) only when that file does not, through any others, refer back
// to it. It fails on each circle, with the names that tie it.
func TestFilesUseEachOtherOneWay(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the package")
	}
	wine.Skip(t, "packages.Load needs the go command, which the Wine prefix has not")
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("loading core/task: %v", pkgs)
	}
	p := pkgs[0]
	uses := map[string]map[string][]string{} // file → file it refers to → the names
	for _, f := range p.Syntax {
		from := filepath.Base(p.Fset.Position(f.Pos()).Filename)
		ast.Inspect(f, func(n ast.Node) bool {
			id, ok := n.(*ast.Ident)
			if !ok {
				return true
			}
			obj := p.TypesInfo.Uses[id]
			if obj == nil || obj.Pkg() != p.Types {
				return true
			}
			if v, ok := obj.(*types.Var); ok && !v.IsField() && v.Parent() != p.Types.Scope() {
				return true // a local variable
			}
			to := filepath.Base(p.Fset.Position(obj.Pos()).Filename)
			if to == from {
				return true
			}
			if uses[from] == nil {
				uses[from] = map[string][]string{}
			}
			if !slices.Contains(uses[from][to], obj.Name()) {
				uses[from][to] = append(uses[from][to], obj.Name())
			}
			return true
		})
	}
	for _, circle := range circles(uses) {
		var ties []string
		for _, a := range circle {
			for _, b := range circle {
				if names := uses[a][b]; len(names) > 0 {
					ties = append(ties, a+" -> "+b+": "+strings.Join(names, ", "))
				}
			}
		}
		t.Errorf("these files use each other in a circle; move what ties them so one uses the other only:\n%s", strings.Join(ties, "\n"))
	}
}

// circles returns the strongly connected sets of more than one file (Tarjan's algorithm).
func circles(uses map[string]map[string][]string) [][]string {
	var files []string
	for f := range uses {
		files = append(files, f)
	}
	sort.Strings(files)
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	var visit func(v string)
	visit = func(v string) {
		index[v], low[v] = len(index), len(index)
		stack = append(stack, v)
		onStack[v] = true
		var next []string
		for w := range uses[v] {
			next = append(next, w)
		}
		sort.Strings(next)
		for _, w := range next {
			if _, seen := index[w]; !seen {
				visit(w)
				low[v] = min(low[v], low[w])
			} else if onStack[w] {
				low[v] = min(low[v], index[w])
			}
		}
		if low[v] != index[v] {
			return
		}
		var c []string
		for {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[w] = false
			c = append(c, w)
			if w == v {
				break
			}
		}
		if len(c) > 1 {
			sort.Strings(c)
			out = append(out, c)
		}
	}
	for _, f := range files {
		if _, seen := index[f]; !seen {
			visit(f)
		}
	}
	return out
}
