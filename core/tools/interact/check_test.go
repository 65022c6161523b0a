package interact

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

// checkUI records the completion rows and counts the asks; every ask is accepted.
type checkUI struct {
	rows []*msg.Completion
	asks int
}

func (u *checkUI) Approve(context.Context, tools.Approval) (tools.Answer, error) {
	return tools.Answer{Approved: true}, nil
}

func (u *checkUI) Ask(context.Context, msg.Kind, string, msg.Payload) (tools.Answer, error) {
	u.asks++
	return tools.Answer{}, nil
}

func (u *checkUI) Say(_ context.Context, kind msg.Kind, _ string, p msg.Payload, _ bool) {
	if c, ok := p.(*msg.Completion); ok && kind == msg.SayCompletionResult {
		u.rows = append(u.rows, c)
	}
}

type fakeCheck struct {
	code int
	out  string
	err  error
}

func (f fakeCheck) Command() string { return "make test" }

func (f fakeCheck) Run(context.Context, *tools.Env) (int, string, error) { return f.code, f.out, f.err }

// A completion with a "done when" check (README, "Done when") is accepted only when the
// check exits 0; otherwise the result is refused with the check's output and nothing is asked.
func TestCompletionCheck(t *testing.T) {
	cases := []struct {
		name      string
		check     DoneCheck
		completed bool
		text      []string
	}{
		{"no check", nil, true, []string{"accepted"}},
		{"passes", fakeCheck{code: 0, out: "ok"}, true, []string{"accepted"}},
		{"fails", fakeCheck{code: 2, out: "FAIL: TestX"}, false, []string{"refused", "`make test`", "exited 2", "FAIL: TestX"}},
		{"cannot run", fakeCheck{err: errors.New("no terminal")}, false, []string{"refused", "could not run: no terminal"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ui := &checkUI{}
			res, err := Completion{Check: c.check}.Run(context.Background(), &tools.Env{UI: ui},
				tools.Call{Name: CompletionName, Params: map[string]string{"result": "Done."}})
			if err != nil {
				t.Fatal(err)
			}
			if res.Completed != c.completed {
				t.Errorf("completed = %v, want %v", res.Completed, c.completed)
			}
			for _, w := range c.text {
				if !strings.Contains(res.Text, w) {
					t.Errorf("result lacks %q: %s", w, res.Text)
				}
			}
			if len(ui.rows) != 1 {
				t.Fatalf("%d completion rows, want 1", len(ui.rows))
			}
			if got := ui.rows[0].Check; (got == nil) != (c.check == nil) || got != nil && got.Passed != c.completed {
				t.Errorf("row's check = %+v", got)
			}
			if asked := ui.asks > 0; asked != c.completed {
				t.Errorf("asked = %v, want %v", asked, c.completed)
			}
		})
	}
}
