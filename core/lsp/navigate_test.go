package lsp_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/cairnhq/cairn/core/lsp"
)

// goplsSays runs gopls's own command line (`gopls references|definition file:line:col`) and
// returns the places it prints, as "path:line".
func goplsSays(t *testing.T, dir string, args ...string) []string {
	t.Helper()
	cmd := exec.Command("gopls", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("gopls %v: %v\n%s", args, err, out)
	}
	var places []string
	for _, m := range regexp.MustCompile(`(?m)^(\S+\.go):(\d+):\d+`).FindAllStringSubmatch(string(out), -1) {
		places = append(places, m[1]+":"+m[2])
	}
	slices.Sort(places)
	return places
}

func placesOf(locs []lsp.Location) []string {
	out := make([]string, len(locs))
	for i, l := range locs {
		out[i] = l.Path + ":" + strconv.Itoa(l.Line)
	}
	slices.Sort(out)
	return out
}

// References and definitions of a Go symbol are gopls's own answer.
func TestGoplsNavigation(t *testing.T) {
	need(t, "gopls")
	root, main := goModule(t)
	other := filepath.Join(root, "other.go")
	write(t, other, "package main\n\nfunc twice() string {\n\treturn greet() + greet()\n}\n")
	m := lsp.New(patient)
	defer func() {
		if err := m.Close(); err != nil {
			t.Error(err)
		}
	}()
	ctx := context.Background()
	// greet is used on main.go's line 8, column 14.
	at := fmt.Sprintf("%s:%d:%d", main, 8, 14)
	refs, ok, err := m.References(ctx, []string{root}, main, 8, 14)
	if err != nil || !ok {
		t.Fatalf("References: %v, %v", ok, err)
	}
	// The declaration is among the references, as the tool asks (-d on gopls's command line).
	wantRefs := goplsSays(t, root, "references", "-d", at)
	if got := placesOf(refs); !slices.Equal(got, wantRefs) || len(got) != 4 {
		t.Errorf("references = %v, gopls says %v", got, wantRefs)
	}
	defs, ok, err := m.Definition(ctx, []string{root}, other, 4, 9)
	if err != nil || !ok {
		t.Fatalf("Definition: %v, %v", ok, err)
	}
	wantDefs := goplsSays(t, root, "definition", fmt.Sprintf("%s:%d:%d", other, 4, 9))
	if got := placesOf(defs); !slices.Equal(got, wantDefs) || len(got) != 1 || got[0] != main+":5" {
		t.Errorf("definition = %v, gopls says %v", got, wantDefs)
	}
}
