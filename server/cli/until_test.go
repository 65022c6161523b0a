package cli_test

import (
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// `cairn run --until CMD` (README, "Done when"): a completion is accepted only when CMD exits
// 0. The first completion is refused with the check's output as its result, the model fixes
// the file, and the second is accepted; a model that never fixes it is stopped by the request
// limit.
func TestRunUntil(t *testing.T) {
	// The check passes once ok.txt says "yes"; it prints what it found either way.
	check := `sh -c 'echo "found: $(cat ok.txt 2>/dev/null)"; grep -qx yes ok.txt'`
	fix := llmtest.Turn{Text: "<write_to_file>\n<path>ok.txt</path>\n<content>\nyes\n</content>\n</write_to_file>"}
	refusedWith := &llmtest.Expect{LastUserContains: []string{"The completion was refused", "exited 1", "found: no"}}
	write := func(v string) llmtest.Turn {
		return llmtest.Turn{Text: "<write_to_file>\n<path>ok.txt</path>\n<content>\n" + v + "\n</content>\n</write_to_file>"}
	}
	cases := []struct {
		name   string
		turns  []llmtest.Turn
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"refused, then accepted after the fix",
			[]llmtest.Turn{write("no"), {Text: completion}, fix, {Text: completion, Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'ok.txt'] Result:"}}}},
			nil, 0, []string{"✗ not done yet", "found: no", "✓ All done."}, nil},
		{"refused again and again until the request limit",
			[]llmtest.Turn{write("no"), {Text: completion}, {Text: completion, Expect: refusedWith}, {Text: completion, Expect: refusedWith}},
			[]string{"--max-requests", "3"}, 3, []string{"✗ not done yet"}, []string{"its limit of 3"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"--auto-approve", "read,edit", "--until", check}, c.args...)
			code, out, errs, _ := runCLI(t, llmtest.Script{Turns: c.turns}, append(args, "make ok.txt say yes")...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out, errs)
			}
			for _, want := range c.stdout {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			for _, want := range c.stderr {
				if !strings.Contains(errs, want) {
					t.Errorf("stderr lacks %q:\n%s", want, errs)
				}
			}
			if c.code == 0 && strings.Count(out, "✓") != 1 {
				t.Errorf("want one accepted completion:\n%s", out)
			}
		})
	}
}
