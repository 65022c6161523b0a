package interact

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

//go:embed switchmode.md
var switchModeMD string

var switchModeText = tools.Texts{MD: &switchModeMD}

// SwitchMode is switch_mode: the model asks to put the task in another mode (docs/modes.md).
// It asks like a tool the user approves, so the auto-approval policy decides (only YOLO
// approves it), and the task's ModeSwitcher makes the switch.
type SwitchMode struct{}

// Spec describes the tool.
func (SwitchMode) Spec() tools.Spec {
	return tools.Spec{
		Name: SwitchModeName, Description: descriptions.Format(SwitchModeName), Category: tools.CategoryInteract,
		PlanSafe: true, ArgParam: "mode_slug",
		Params: []tools.Param{
			{Name: "mode_slug", Required: true, Description: switchModeText.Format("param-mode"), Usage: "Mode slug here"},
			{Name: "reason", Description: switchModeText.Format("param-reason"), Usage: "Reason for switching (optional)"},
		},
	}
}

// Run asks the user, then switches.
func (SwitchMode) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	if env.Modes == nil {
		return tools.Errorf("%s", switchModeText.Format("unavailable")), nil
	}
	slug, ok := call.Param("mode_slug")
	slug = strings.TrimSpace(slug)
	if !ok || slug == "" {
		return tools.MissingParam(SwitchModeName, "mode_slug"), nil
	}
	name, ok := env.Modes.Name(slug)
	if !ok {
		return tools.Errorf("%s", switchModeText.Format("unknown", slug)), nil
	}
	if env.Modes.Current() == slug {
		return tools.Errorf("%s", switchModeText.Format("same", name)), nil
	}
	reason, _ := call.Param("reason")
	ans, err := env.UI.Approve(ctx, tools.Approval{Ask: msg.AskTool, Category: tools.CategoryInteract, Inside: true,
		Text: slug, Payload: &msg.Tool{Op: msg.OpSwitchMode, Path: slug, Content: strings.TrimSpace(reason)}})
	if err != nil {
		return tools.Result{}, fmt.Errorf("switch_mode: approval: %w", err)
	}
	if !ans.Approved {
		return tools.Result{Text: switchModeText.Format("denied", name), Rejected: true, UserFeedback: ans.Text}, nil
	}
	if err := env.Modes.Switch(slug); err != nil {
		return tools.Errorf("%s", switchModeText.Format("unknown", slug)), nil
	}
	return tools.Result{Text: switchModeText.Format("switched", name, slug), UserFeedback: ans.Text}, nil
}
