package task

import (
	"context"
	"fmt"
	"math"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/msg"
)

// Guard rails the loop applies on its own (the counts: core/task/guards), whatever the model does: per-task limits on
// requests and cost, checked before every request, and the loop stop, which refuses the same
// tool call a third time in a row. Both stop the task with a question; continuing lets the
// user's words reach the model.

// SetLimits replaces the task's limits (the task header's control). A task stopped at a
// limit goes on when its question is answered.
func (t *Task) SetLimits(l config.TaskLimits) error {
	if l.MaxRequests < 0 || l.MaxCost < 0 || math.IsNaN(l.MaxCost) || math.IsInf(l.MaxCost, 0) {
		return fmt.Errorf("%w: limits must be zero (none) or positive", ErrBadRequest)
	}
	t.guards.SetLimits(l)
	t.state.Publish()
	return nil
}

// checkLimits runs before each model request. At a limit it asks: continue (the limit that
// was reached grows by its own size again, unless the user already raised it), or stop. It
// returns the user's words for the model, or the ending when the task stops.
func (l *runLoop) checkLimits(ctx context.Context) (string, ending) {
	if l.sub != nil {
		if why := l.sub.Limit(l.guards.Requests(), l.guards.Limits().MaxRequests); why != "" {
			l.conv.Say(msg.SayError, why, nil, false)
			return "", endFailed
		}
		return "", 0
	}
	why := l.guards.OverLimit(l.conv.Meta().Cost)
	if why == "" {
		return "", 0
	}
	ans, _, err := l.task.ask(ctx, msg.AskTaskLimitReached, why+" Continue, raise the limit, or stop the task.", nil, nil)
	if err != nil {
		return "", endCancelled
	}
	if !ans.Approved && ans.Text == "" {
		return "", endFailed
	}
	base := l.cfg.Settings().TaskLimits
	l.guards.RaiseReached(base, l.conv.Meta().Cost)
	l.state.Publish()
	if ans.Text != "" {
		l.conv.Say(msg.SayUserFeedback, ans.Text, nil, false)
	}
	return ans.Text, 0
}
