package envdetails

import (
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/cairnhq/cairn/core/internal/wine"
)

func TestDetectorProbesOnceInOrder(t *testing.T) {
	var probes atomic.Int32
	have := map[string]bool{"make": true, "git": true, "rg": true}
	d := &detector{names: []string{"git", "go", "make", "node", "rg"}, look: func(name string) (string, error) {
		probes.Add(1)
		if have[name] {
			return "/usr/bin/" + name, nil
		}
		return "", errors.New("not found")
	}}
	first := d.detect()
	first[0] = "mutated by a caller"
	second := d.detect()
	want := []string{"git", "make", "rg"}
	if !slices.Equal(second, want) {
		t.Errorf("detect = %q, want %q in list order", second, want)
	}
	if n := probes.Load(); n != 5 {
		t.Errorf("%d probes over two calls, want 5 (one per name, cached)", n)
	}
}

// The real probe finds go: `go test` runs with the tool chain on PATH.
func TestDetectCLIToolsFindsGo(t *testing.T) {
	wine.Skip(t, "the PATH inside the Wine prefix holds no Go tool chain")
	if got := DetectCLITools(); !slices.Contains(got, "go") {
		t.Errorf("DetectCLITools = %q, want go among them", got)
	}
}
