// Package interact holds the tools that are the conversation itself rather than work on the
// workspace: asking the user, presenting a result, answering in PLAN mode, and proposing a new
// or condensed task. They never need approval; they ask.
package interact

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

// descriptions.md holds the tools' descriptions, one `## tool name` section each.
//
//go:embed descriptions.md
var descriptionsMD string

var descriptions = tools.Texts{MD: &descriptionsMD}

// messages.md holds the texts of the tools' results, one `## key` section each.
//
//go:embed messages.md
var messagesMD string

var messages = tools.Texts{MD: &messagesMD}

// The tools' names, in the prompt and in tool calls: everything that names one of them uses
// these.
const (
	FollowupName    = toolnames.AskFollowupQuestion
	CompletionName  = toolnames.AttemptCompletion
	PlanRespondName = toolnames.PlanModeRespond
	NewTaskName     = toolnames.NewTask
	CondenseName    = toolnames.Condense
	SwitchModeName  = toolnames.SwitchMode
)

// All returns every interact tool; attempt_completion runs check, when not nil, before it
// accepts a result.
func All(check DoneCheck) []tools.Tool {
	return []tools.Tool{Followup{}, Completion{Check: check}, PlanRespond{}, NewTask{}, Condense{}, SwitchMode{}}
}

// DoneCheck is a task's "done when" check (README, "Done when"): a command whose exit code
// decides whether a completion is accepted.
type DoneCheck interface {
	// Command is the check's command line, as the user gave it.
	Command() string
	// Run runs the check in the task's first root and returns its exit code and its output,
	// bounded as a command's output is for the model. An error means it could not run.
	Run(ctx context.Context, env *tools.Env) (exitCode int, output string, err error)
}

// Followup is ask_followup_question.
type Followup struct{}

// Spec describes the tool.
func (Followup) Spec() tools.Spec {
	return tools.Spec{
		Name: FollowupName, Description: descriptions.Format(FollowupName),
		Category: tools.CategoryInteract, PlanSafe: true, ArgParam: "question",
		Params: []tools.Param{
			{Name: "question", Required: true, Description: "The question to ask.", Usage: "Your question here"},
			{Name: "options", Description: "Optional JSON array of 2 to 5 short answers the user can pick with one click.", Usage: `["Option 1", "Option 2"]`},
		},
	}
}

// Run asks and returns the answer.
func (Followup) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	q, _ := call.Param("question")
	p := &msg.Followup{Question: q, Options: parseOptions(call.Params["options"])}
	ans, err := env.UI.Ask(ctx, msg.AskFollowup, q, p)
	if err != nil {
		return tools.Result{}, err
	}
	env.UI.Say(ctx, msg.SayUserFeedback, ans.Text, nil, false)
	return tools.Result{Text: "<answer>\n" + ans.Text + "\n</answer>"}, nil
}

// parseOptions accepts a JSON array of strings; anything else gives no options.
func parseOptions(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	var opts []string
	if err := json.Unmarshal([]byte(s), &opts); err != nil {
		return nil
	}
	return opts
}

// Completion is attempt_completion. With a Check, a result is presented only once the check
// passes; a failed check's output is the refused completion's result, and the task goes on.
type Completion struct {
	Check DoneCheck
}

// Spec describes the tool.
func (Completion) Spec() tools.Spec {
	return tools.Spec{
		Name: CompletionName, Description: descriptions.Format(CompletionName),
		Category: tools.CategoryInteract, PlanSafe: false,
		Params: []tools.Param{
			{Name: "result", Required: true, Description: "The final result, stated plainly.", Usage: "Your final result description here"},
			{Name: "command", Description: "Optional command that shows the result (e.g. `open index.html`); not for printing text.", Usage: "Command to demonstrate result (optional)"},
		},
	}
}

// Run presents the result and waits: approval ends the task, a message continues it.
func (c Completion) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	result, _ := call.Param("result")
	command := strings.TrimSpace(call.Params["command"])
	payload := &msg.Completion{Result: result, Command: command}
	if c.Check != nil {
		chk := c.runCheck(ctx, env)
		payload.Check = chk
		env.UI.Say(ctx, msg.SayCompletionResult, result, payload, false)
		if !chk.Passed {
			return tools.Result{Text: messages.Format("check-failed", chk.Command, chk.ExitCode, chk.Output)}, nil
		}
	} else {
		env.UI.Say(ctx, msg.SayCompletionResult, result, payload, false)
	}
	if command != "" {
		protected := tools.ProtectedCommand(env.Files, command)
		ans, err := env.UI.Approve(ctx, tools.Approval{Ask: msg.AskCommand, Category: tools.CategoryCommand,
			Command: command, RequiresApproval: true, Protected: protected, Text: command,
			Payload: &msg.Command{Command: command, RequiresApproval: true, Protected: protected}})
		if err != nil {
			return tools.Result{}, err
		}
		if ans.Approved && env.Host != nil {
			if p, err := env.Host.Terminal().Run(ctx, tools.CommandRequest{Command: command, Cwd: env.Files.Root()}); err == nil {
				_, _ = p.Wait(ctx)
			}
		}
	}
	ans, err := env.UI.Ask(ctx, msg.AskCompletionResult, "", nil)
	if err != nil {
		return tools.Result{}, err
	}
	if strings.TrimSpace(ans.Text) == "" && len(ans.Images) == 0 {
		return tools.Result{Completed: true, Text: "The user accepted the result."}, nil
	}
	env.UI.Say(ctx, msg.SayUserFeedback, ans.Text, nil, false)
	return tools.Result{Text: "The user has given feedback on the result. Address it and attempt completion again.\n<feedback>\n" +
		ans.Text + "\n</feedback>"}, nil
}

// runCheck runs the "done when" check; one that could not run has not passed, and its
// output says why.
func (c Completion) runCheck(ctx context.Context, env *tools.Env) *msg.DoneCheck {
	code, out, err := c.Check.Run(ctx, env)
	if err != nil {
		return &msg.DoneCheck{Command: c.Check.Command(), ExitCode: -1, Output: "The check could not run: " + err.Error()}
	}
	return &msg.DoneCheck{Command: c.Check.Command(), ExitCode: code, Passed: code == 0, Output: out}
}

// PlanRespond is plan_mode_respond.
type PlanRespond struct{}

// Spec describes the tool.
func (PlanRespond) Spec() tools.Spec {
	return tools.Spec{
		Name: PlanRespondName, Description: descriptions.Format(PlanRespondName),
		Category: tools.CategoryInteract, PlanSafe: true,
		Params: []tools.Param{
			{Name: "response", Required: true, Description: "Your reply to the user.", Usage: "Your response here"},
			{Name: "needs_more_exploration", Description: "true when you will read more files before the plan is ready.", Usage: "true or false (optional)"},
		},
	}
}

// Run shows the response and waits for the user's reply (or a switch to ACT mode).
func (PlanRespond) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	resp, _ := call.Param("response")
	more := strings.TrimSpace(call.Params["needs_more_exploration"]) == "true"
	if more {
		env.UI.Say(ctx, msg.SayText, resp, nil, false)
		return tools.Result{Text: "[You said you need to explore more. Use read tools, then respond again.]"}, nil
	}
	ans, err := env.UI.Ask(ctx, msg.AskPlanModeRespond, resp, &msg.Followup{Question: resp})
	if err != nil {
		return tools.Result{}, err
	}
	if ans.Text != "" && !strings.HasPrefix(ans.Text, "[The user switched to ACT MODE") {
		env.UI.Say(ctx, msg.SayUserFeedback, ans.Text, nil, false)
	}
	return tools.Result{Text: "<user_message>\n" + ans.Text + "\n</user_message>"}, nil
}

// NewTask is new_task.
type NewTask struct{}

// Spec describes the tool.
func (NewTask) Spec() tools.Spec {
	return tools.Spec{
		Name: NewTaskName, Description: descriptions.Format(NewTaskName), Category: tools.CategoryInteract, PlanSafe: true,
		Params: []tools.Param{{Name: "context", Required: true, Description: "The context to carry into the new task.", Usage: "Context to preload the new task with"}},
	}
}

// Run asks the user whether to start the new task.
func (NewTask) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	c, _ := call.Param("context")
	ans, err := env.UI.Ask(ctx, msg.AskNewTask, c, &msg.NewTask{Context: c})
	if err != nil {
		return tools.Result{}, err
	}
	if ans.Approved {
		return tools.Result{Completed: true, Text: "The user started a new task with this context."}, nil
	}
	return tools.Result{Rejected: true, Text: "The user did not start a new task.", UserFeedback: ans.Text}, nil
}

// Condense is condense: the model summarises the conversation and, once the user accepts the
// summary, the loop sends the summary in place of the earlier turns (Result.Condensed).
type Condense struct{}

// Spec describes the tool.
func (Condense) Spec() tools.Spec {
	return tools.Spec{
		Name: CondenseName, Description: descriptions.Format(CondenseName), Category: tools.CategoryInteract, PlanSafe: true,
		Params: []tools.Param{{Name: "context", Required: true, Description: "The structured summary.", Usage: "Summary of the conversation"}},
	}
}

// Run asks the user to accept the summary.
func (Condense) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	c, _ := call.Param("context")
	ans, err := env.UI.Ask(ctx, msg.AskCondense, c, &msg.NewTask{Context: c})
	if err != nil {
		return tools.Result{}, err
	}
	if !ans.Approved {
		return tools.Result{Rejected: true, Text: "The user did not accept the summary.", UserFeedback: ans.Text}, nil
	}
	return tools.Result{Text: "The conversation was condensed to your summary. Continue the task from it.", Condensed: c}, nil
}
