package toolcall

import (
	"context"

	"github.com/cairnhq/cairn/core/parse"
	"github.com/cairnhq/cairn/core/tools"
)

// Preview shows a call still streaming through its tool's preview, when the tool has one (the
// diff view fills in place). A call that will be refused in PLAN mode is never previewed: no
// diff view opens and nothing is created on disk; one that may change files waits for the
// run's first checkpoint first (a preview may create the file). Its error is not the call's
// (Run decides), and a panic only ends the preview.
func Preview(ctx context.Context, d Deps, b parse.Block) (err error) {
	tool, ok := d.Registry.Get(b.Name)
	if !ok {
		return nil
	}
	pv, ok := tool.(tools.Previewer)
	if !ok || d.Task.Planning() && !tool.Spec().PlanSafe {
		return nil
	}
	if !tool.Spec().PlanSafe {
		d.Checkpoints.AwaitFirst(ctx)
	}
	defer func() {
		if r := recover(); r != nil {
			d.Bug("the preview of "+b.Name, r)
		}
	}()
	return pv.Preview(ctx, Env(d), tools.Call{Name: b.Name, Params: b.Params, Partial: true})
}
