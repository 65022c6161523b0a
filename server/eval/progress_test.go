package eval

import (
	"bytes"
	"strings"
	"testing"
)

// On a terminal each progress line starts with a bar; elsewhere the lines are plain.
func TestProgressBarOnlyOnATerminal(t *testing.T) {
	r := Result{Language: "go", Exercise: "octal", Passed: true}
	all := []Result{r, r, r}
	for _, tc := range []struct {
		name string
		bar  bool
		want string
	}{
		{"terminal", true, "[" + strings.Repeat("█", 6) + strings.Repeat("░", 14) + "] [3/10] go/octal"},
		{"plain", false, "[3/10] go/octal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			progress(&b, r, all, 10, tc.bar)
			if !strings.HasPrefix(b.String(), tc.want) {
				t.Fatalf("progress line %q, want it to start with %q", b.String(), tc.want)
			}
		})
	}
}
