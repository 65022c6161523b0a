package shell

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

// Names of the tools that work on commands execute_command started (README "Commands that
// keep running").
const (
	ReadOutputName = toolnames.ReadCommandOutput
	StopName       = toolnames.StopCommand
)

// ReadOutput is read_command_output. It implements tools.Tool.
type ReadOutput struct{ reg *Registry }

// NewReadOutput returns the tool reading the output of reg's commands.
func NewReadOutput(reg *Registry) *ReadOutput { return &ReadOutput{reg: reg} }

// Spec implements tools.Tool. Reading starts nothing, so it is allowed in PLAN mode.
func (r *ReadOutput) Spec() tools.Spec {
	return tools.Spec{
		Name:        ReadOutputName,
		Description: render("read.description", nil),
		Params: []tools.Param{
			{Name: "id", Required: true, Description: render("read.param.id", nil), Usage: render("read.usage.id", nil)},
			{Name: "lines", Description: render("read.param.lines", nil), Usage: render("read.usage.lines", nil)},
			{Name: "regex", Description: render("read.param.regex", nil), Usage: render("read.usage.regex", nil)},
		},
		Category: tools.CategoryRead,
		PlanSafe: true,
		ArgParam: "id",
	}
}

// readData feeds the read.* blocks.
type readData struct {
	ID                int
	Command           string
	Running           bool
	Code              int
	Output            string
	Path              string
	From, To, Total   int
	Range, Regex, Err string
}

// Run implements tools.Tool.
func (r *ReadOutput) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	t, bad := lookup(r.reg, call, ReadOutputName)
	if t == nil {
		return bad, nil
	}
	linesArg, _ := call.Param("lines")
	linesArg = strings.TrimSpace(linesArg)
	regexArg, _ := call.Param("regex")
	var from, to int
	if linesArg != "" {
		var ok bool
		if from, to, ok = parseRange(linesArg); !ok {
			return tools.Errorf("%s", render("error.lines", linesArg)), nil
		}
	}
	var re *regexp.Regexp
	if regexArg != "" && linesArg == "" {
		var err error
		if re, err = regexp.Compile(regexArg); err != nil {
			return tools.Errorf("%s", render("error.regex", readData{Regex: regexArg, Err: err.Error()})), nil
		}
	}

	ans, err := env.UI.Approve(ctx, tools.Approval{
		Ask: msg.AskTool, Category: tools.CategoryRead, Inside: true,
		Payload: &msg.Tool{Op: msg.OpReadFile, Path: render("read.row", rowData{ID: t.ID(), Command: t.Command()})},
	})
	if err != nil {
		return tools.Result{}, fmt.Errorf("read_command_output: approval: %w", err)
	}
	if !ans.Approved {
		return tools.Result{Rejected: true, Text: render("denied", nil), UserFeedback: ans.Text}, nil
	}

	d := readData{ID: t.ID(), Command: t.Command(), Running: !t.Finished(), Code: t.ExitCode()}
	lim := limits(env)
	if linesArg == "" && re == nil {
		// The cursor environment details use too: nothing is shown to the model twice.
		text, _ := t.Take()
		d.Output = strings.TrimRight(Bound(text, lim.Lines, lim.Bytes), " \t\n")
		d.Path = t.SavedPath()
		return tools.Result{Text: render("read.new", d), UserFeedback: ans.Text}, nil
	}
	whole, err := t.Whole()
	if err != nil {
		return tools.Errorf("%s", render("error.not_kept", t.ID())), nil
	}
	lines := strings.Split(strings.TrimSuffix(whole, "\n"), "\n")
	if whole == "" {
		lines = nil
	}
	d.Total = len(lines)
	name := "read.lines"
	if re != nil {
		name = "read.regex"
		d.Regex = regexArg
		d.Output = matches(lines, re)
	} else {
		d.Range = linesArg
		if to == 0 || to > len(lines) {
			to = len(lines)
		}
		if from <= len(lines) && from <= to {
			d.From, d.To = from, to
			d.Output = strings.Join(lines[from-1:to], "\n")
		}
	}
	d.Output = strings.TrimRight(Bound(d.Output, lim.Lines, lim.Bytes), " \t\n")
	return tools.Result{Text: render(name, d), UserFeedback: ans.Text}, nil
}

// matches returns the lines re matches, numbered, each with one line of context on either
// side (marked "-"), groups that do not touch separated by "--".
func matches(lines []string, re *regexp.Regexp) string {
	var b strings.Builder
	last := -1 // the last line written, 0-based
	for i, l := range lines {
		if !re.MatchString(l) {
			continue
		}
		lo, hi := max(i-1, last+1), min(i+1, len(lines)-1)
		if last >= 0 && lo > last+1 {
			b.WriteString("--\n")
		}
		for j := lo; j <= hi; j++ {
			mark := "-"
			if re.MatchString(lines[j]) {
				mark = ":"
			}
			fmt.Fprintf(&b, "%d%s %s\n", j+1, mark, lines[j])
		}
		last = max(last, hi)
	}
	return b.String()
}

// parseRange reads "a-b" or "a-" (1-based; to is 0 for "to the end") or a single line "a".
func parseRange(s string) (from, to int, ok bool) {
	a, b, dash := strings.Cut(s, "-")
	from, err := strconv.Atoi(strings.TrimSpace(a))
	if err != nil || from < 1 {
		return 0, 0, false
	}
	if !dash {
		return from, from, true
	}
	if b = strings.TrimSpace(b); b == "" {
		return from, 0, true
	}
	to, err = strconv.Atoi(b)
	if err != nil || to < from {
		return 0, 0, false
	}
	return from, to, true
}

// Stop is stop_command. It implements tools.Tool.
type Stop struct{ reg *Registry }

// NewStop returns the tool stopping reg's commands.
func NewStop(reg *Registry) *Stop { return &Stop{reg: reg} }

// Spec implements tools.Tool. Stopping starts nothing, so it is allowed in PLAN mode; it is a
// command approval.
func (s *Stop) Spec() tools.Spec {
	return tools.Spec{
		Name:        StopName,
		Description: render("stop.description", nil),
		Params: []tools.Param{
			{Name: "id", Required: true, Description: render("stop.param.id", nil), Usage: render("stop.usage.id", nil)},
		},
		Category: tools.CategoryCommand,
		PlanSafe: true,
		ArgParam: "id",
	}
}

// Run implements tools.Tool.
func (s *Stop) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	t, bad := lookup(s.reg, call, StopName)
	if t == nil {
		return bad, nil
	}
	d := readData{ID: t.ID(), Command: t.Command()}
	lim := limits(env)
	if !t.alive() {
		text, _ := t.Take()
		d.Code, d.Output = t.ExitCode(), strings.TrimRight(Bound(text, lim.Lines, lim.Bytes), " \t\n")
		return tools.Result{Text: render("stop.finished", d)}, nil
	}
	// The approval policy judges the command being stopped: the deny and allow lists and
	// "safe commands" apply to it as they did when it started.
	row := render("stop.ask", rowData{ID: t.ID(), Command: t.Command()})
	ans, err := env.UI.Approve(ctx, tools.Approval{
		Ask: msg.AskCommand, Category: tools.CategoryCommand, Command: t.Command(),
		Payload: &msg.Command{Command: row},
	})
	if err != nil {
		return tools.Result{}, fmt.Errorf("stop_command: approval: %w", err)
	}
	if !ans.Approved {
		return tools.Result{Rejected: true, Text: render("denied.stop", nil), UserFeedback: ans.Text}, nil
	}
	code, err := s.reg.Stop(ctx, t)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, fmt.Errorf("stop_command: %w", ctx.Err())
		}
		d.Err = err.Error()
		return tools.Result{Text: render("stop.failed", d), IsError: true, UserFeedback: ans.Text}, nil
	}
	text, _ := t.Take()
	d.Code, d.Output = code, strings.TrimRight(Bound(text, lim.Lines, lim.Bytes), " \t\n")
	env.UI.Say(ctx, msg.SayInfo, render("row.stopped", rowData{ID: t.ID(), Command: t.Command(), Why: "at the model's request"}),
		&msg.CommandOutput{ID: t.ID(), ExitCode: &code}, false)
	return tools.Result{Text: render("stop.done", d), UserFeedback: ans.Text}, nil
}

// lookup finds the command the call's id names; without one it returns the result to give
// the model.
func lookup(reg *Registry, call tools.Call, tool string) (*Tracked, tools.Result) {
	v, ok := call.Param("id")
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		return nil, tools.MissingParam(tool, "id")
	}
	id, err := strconv.Atoi(v)
	if err != nil {
		return nil, tools.Errorf("%s", render("error.id", v))
	}
	t := reg.Get(id)
	if t == nil {
		return nil, tools.Errorf("%s", render("error.id", v))
	}
	return t, tools.Result{}
}

// limits are the caps of what the tools show the model.
func limits(env *tools.Env) Limits {
	return Limits{Lines: env.Settings.OutputLineLimit, Bytes: env.Settings.OutputByteLimit}
}
