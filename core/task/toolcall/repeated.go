package toolcall

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/tools"
)

//go:embed repeated.md
var repeatedNote string

// Repeated handles a call made the limit's time in a row (limit: the guards' RepeatLimit): it
// is not run, the task asks the user, and continuing starts the count over and passes the
// user's words to the model.
func Repeated(ctx context.Context, d Deps, b parse.Block, limit int) ([]llm.Content, End) {
	d.Registry.DiscardPreviews(ctx)
	what := b.Name
	if tool, ok := d.Registry.Get(b.Name); ok {
		spec := tool.Spec()
		if arg := strings.TrimSpace(b.Params[spec.ArgParam]); spec.ArgParam != "" && arg != "" {
			if len(arg) > 120 {
				arg = strings.ToValidUTF8(arg[:120], "") + "…"
			}
			what += " " + arg
		}
	}
	ans, _, err := d.Task.Ask(ctx, msg.AskRepeatedToolCall, fmt.Sprintf("Cairn is repeating itself: it made the same call (%s) %d times in a row. "+
		"The last one was not run. Continue with guidance, or stop the task.", what, limit), nil, nil)
	if err != nil {
		return nil, Cancelled
	}
	if !ans.Approved && ans.Text == "" {
		return nil, Failed
	}
	d.Guards.ForgetRepeats()
	header := "[" + b.Name + "] Result:"
	if tool, ok := d.Registry.Get(b.Name); ok {
		header = resultHeader(tool.Spec(), tools.Call{Name: b.Name, Params: b.Params})
	}
	res := tools.Result{Text: strings.TrimSpace(repeatedNote), UserFeedback: ans.Text}
	if ans.Text != "" {
		d.Chat.Say(msg.SayUserFeedback, ans.Text, nil, false)
	}
	return content(ctx, d, header, res), 0
}
