package task

import (
	"context"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/task/guards"
	"github.com/cairnhq/cairn/core/task/toolcall"
	"github.com/cairnhq/cairn/core/tools"
)

// A tool call goes through core/task/toolcall's steps; the run gives it the task's tools and
// owners, each as the interface the pipeline declares.

// runTool validates, approves (through the tool's own UI calls) and executes one tool call, and
// returns the next user content. A non-zero ending stops the loop.
func (l *runLoop) runTool(ctx context.Context, b parse.Block) ([]llm.Content, ending) {
	return toolcall.Run(ctx, l.toolDeps(), b)
}

// stopRepeating handles a call made a third time in a row (toolcall.Repeated).
func (l *runLoop) stopRepeating(ctx context.Context, b parse.Block) ([]llm.Content, ending) {
	return toolcall.Repeated(ctx, l.toolDeps(), b, guards.RepeatLimit)
}

// ResultText is the text the model receives for a tool result (without images): the header,
// the result or the wrapped error, and the user's feedback. `cairn tool` prints exactly this.
func ResultText(spec tools.Spec, call tools.Call, res tools.Result) string {
	return toolcall.ResultText(spec, call, res)
}
