// Package shell is the execute_command tool and the command state shared with environment
// details: a Registry of the commands a task started, so output that arrives after the tool
// returned ("proceed while running") still reaches the model.
//
// The tool refuses commands that would print a file the workspace's ignore file hides (as read_file
// does), marks those that write a protected file (core/protect), then asks for approval; deny and
// allow lists and auto-approval are the loop's job (docs/architecture.md, "Approvals"). Output is
// cleaned of terminal escapes and line-limited here, so every host terminal (the editor's or
// core/host/direct) gives the model the same plain text.
package shell

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/shellcmd"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

// Name is the tool's name in the prompt.
const Name = toolnames.ExecuteCommand

// Output reaches the chat in pieces of at most this age or about this size, so a chatty
// command neither floods the client with tiny updates nor looks frozen.
const (
	flushEvery = 100 * time.Millisecond
	flushBytes = 4096
)

// Tool is execute_command. It implements tools.Tool.
type Tool struct {
	reg *Registry
}

// New returns the tool; commands it starts are tracked in reg, whose wait limit
// (Registry.SetWait) applies to them.
func New(reg *Registry) *Tool { return &Tool{reg: reg} }

// descriptionData feeds the description block.
type descriptionData struct {
	Max, Wait int
}

func (t *Tool) waitSeconds() int { return int(t.reg.Wait() / time.Second) }

// Spec implements tools.Tool.
func (t *Tool) Spec() tools.Spec {
	return tools.Spec{
		Name:        Name,
		Description: render("description", descriptionData{Max: MaxBackground, Wait: t.waitSeconds()}),
		Params: []tools.Param{
			{Name: "command", Required: true, Description: render("param.command", nil), Usage: render("usage.command", nil)},
			{Name: "requires_approval", Required: true, Description: render("param.requires_approval", nil), Usage: render("usage.requires_approval", nil)},
			{Name: "timeout", Description: render("param.timeout", nil), Usage: render("usage.timeout", nil)},
			{Name: "background", Description: render("param.background", nil), Usage: render("usage.background", nil)},
		},
		Category: tools.CategoryCommand,
		ArgParam: "command",
	}
}

// Run implements tools.Tool: ask, run, follow the output until the command ends, the user
// lets the task proceed, the timeout hits or ctx ends.
func (t *Tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	command, _ := call.Param("command")
	command = strings.TrimSpace(command)
	if command == "" {
		return tools.MissingParam(Name, "command"), nil
	}
	reqText, ok := call.Param("requires_approval")
	if !ok || strings.TrimSpace(reqText) == "" {
		return tools.MissingParam(Name, "requires_approval"), nil
	}
	requires, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(reqText)))
	if err != nil {
		return tools.Result{Text: render("error.requires_approval", reqText), IsError: true}, nil
	}
	var timeout int
	if v, ok := call.Param("timeout"); ok && strings.TrimSpace(v) != "" {
		timeout, err = strconv.Atoi(strings.TrimSpace(v))
		if err != nil || timeout <= 0 {
			return tools.Result{Text: render("error.timeout", v), IsError: true}, nil
		}
	}

	var background bool
	if v, ok := call.Param("background"); ok && strings.TrimSpace(v) != "" {
		background, err = strconv.ParseBool(strings.ToLower(strings.TrimSpace(v)))
		if err != nil {
			return tools.Result{Text: render("error.background", v), IsError: true}, nil
		}
	}
	if background && t.reg.BackgroundFull() {
		// The refusal is the user's to see too (the chat, `cairn run`'s note), not only the
		// model's (README, "Commands that keep running").
		env.UI.Say(ctx, msg.SayInfo, render("row.background_full", rowData{ID: MaxBackground, Command: command}), nil, false)
		return tools.Errorf("%s", render("error.background_full", MaxBackground)), nil
	}

	if rel, blocked := readsIgnored(env.Files, command); blocked {
		env.UI.Say(ctx, msg.SayIgnoreError, rel, nil, false)
		return tools.Errorf("%s", render("ignored", rel)), nil
	}

	protected := tools.ProtectedCommand(env.Files, command)
	outside := tools.OutsideWriteCommand(env.Files, command)
	readsOutside := tools.CommandReadsOutside(env.Files, command)
	caution := tools.CommandCaution(ctx, env.Files, command)
	pl := t.planFor()
	ans, err := env.UI.Approve(ctx, tools.Approval{
		Ask:              msg.AskCommand,
		Category:         tools.CategoryCommand,
		Command:          command,
		RequiresApproval: requires,
		Protected:        protected,
		OutsideWrite:     outside,
		ReadsOutside:     readsOutside,
		Caution:          caution,
		Unconfined:       pl.unconfined,
		Payload: &msg.Command{Command: command, RequiresApproval: requires, Protected: protected, OutsideWrite: outside,
			OutsideRead: readsOutside, Sandbox: pl.note},
	})
	if err != nil {
		return tools.Result{}, fmt.Errorf("execute_command: approval: %w", err)
	}
	if !ans.Approved {
		return tools.Result{Rejected: true, Text: render("denied", nil), UserFeedback: ans.Text}, nil
	}

	if env.Host == nil || env.Host.Terminal() == nil {
		return tools.Result{}, ErrNoTerminal
	}
	req := tools.CommandRequest{Command: command, Cwd: env.Files.Root()}
	if !pl.confined {
		return t.execute(ctx, env, req, ans.Text, timeout, background)
	}
	pol, err := t.policy(env, pl, command, ans, protected != "")
	if err != nil {
		return tools.Result{}, fmt.Errorf("execute_command: sandbox: %w", err)
	}
	req.Sandbox = &pol
	gitBefore := gitPresence(pol.Roots)
	res, tracked, err := t.run(ctx, env, req, ans.Text, timeout, background)
	if err != nil || tracked == nil || !tracked.Finished() {
		return res, err
	}
	if ans.Auto && pol.Tier == sandbox.Workspace && pol.Protected != nil {
		if removed := removeNewProtected(pol, gitBefore); len(removed) > 0 {
			rels := make([]string, len(removed))
			for i, p := range removed {
				rels[i] = env.Files.Rel(p)
			}
			note := render("sandbox.removed", strings.Join(rels, ", "))
			env.UI.Say(ctx, msg.SayInfo, note, nil, false)
			res.Text += "\n\n" + note
		}
	}
	if tracked.ExitCode() == 0 {
		return res, nil
	}
	return t.escalate(ctx, env, req, res, tracked, timeout, background)
}

// execute runs req and follows it (Run after the approval).
func (t *Tool) execute(ctx context.Context, env *tools.Env, req tools.CommandRequest, feedback string, timeout int, background bool) (tools.Result, error) {
	res, _, err := t.run(ctx, env, req, feedback, timeout, background)
	return res, err
}

// run starts req and follows it; the tracked command comes back when it ended within the
// call, so its output can be looked at.
func (t *Tool) run(ctx context.Context, env *tools.Env, req tools.CommandRequest, feedback string, timeout int, background bool) (tools.Result, *Tracked, error) {
	// The process may outlive this call (proceed while running), so it must not die with the
	// call's ctx; this function kills it itself when ctx ends while it follows the command.
	proc, err := env.Host.Terminal().Run(context.WithoutCancel(ctx), req)
	if err != nil {
		return tools.Result{}, nil, fmt.Errorf("execute_command: start: %w", err)
	}
	lim := Limits{Lines: env.Settings.OutputLineLimit, Bytes: env.Settings.OutputByteLimit, Dir: env.Scratch}
	f := &follower{env: env, tracked: t.reg.track(req.Command, proc, lim, background), feedback: feedback, background: background}
	res, err := f.follow(ctx, time.Duration(timeout)*time.Second)
	if f.tracked.Finished() {
		if err == nil && f.leftovers() {
			// What the command left running (`server &`, nohup, setsid) is kept as this
			// command, in the background, never stopped unsaid (README, "Commands that
			// keep running").
			f.tracked.keepLeftovers()
			row := rowData{ID: f.tracked.ID(), Command: f.tracked.Command()}
			f.env.UI.Say(ctx, msg.SayInfo, render("row.leftovers", row), nil, false)
			res.Text += "\n\n" + render("result.leftovers", resultData{ID: f.tracked.ID()})
			return res, f.tracked, nil
		}
		t.reg.forget(f.tracked)
		return res, f.tracked, err
	}
	return res, nil, err
}

// leftoverSettle is how long processes a finished command left must outlast its shell to be
// kept: the sandbox's launcher leaving once its namespace is empty, or a hangup at the
// shell's exit, ends the group within it when nothing is left.
const leftoverSettle = time.Second

// leftovers reports whether processes the finished command started still run once
// leftoverSettle passed: in its group (with the command sandbox, in its launcher's
// namespace), or outside it where the host tells (Tracked.leftRunning).
func (f *follower) leftovers() bool {
	if f.tracked.group == 0 {
		return false
	}
	deadline := time.Now().Add(leftoverSettle)
	for f.tracked.leftRunning() {
		if time.Now().After(deadline) {
			return true
		}
		time.Sleep(groupPoll)
	}
	return false
}

// escalate looks in a failed sandboxed command's output for what the sandbox refused. When
// it finds something, the model is told which rule stopped it, and the user (never the
// model: the ask is never auto-approved) may approve a rerun with the access it needs.
func (t *Tool) escalate(ctx context.Context, env *tools.Env, req tools.CommandRequest, res tools.Result, tracked *Tracked, timeout int, background bool) (tools.Result, error) {
	pol := *req.Sandbox
	d := sandbox.Explain(pol, tracked.View(), req.Cwd)
	if d.Empty() {
		return res, nil
	}
	why := d.Text(pol)
	denied := render("sandbox.denied", deniedData{Why: why, Access: d.Access()})
	ans, err := env.UI.Approve(ctx, tools.Approval{
		Ask: msg.AskCommand, Category: tools.CategoryCommand, Command: req.Command, RequiresApproval: true,
		Unconfined: "a rerun with more access is the user's choice",
		Payload:    &msg.Command{Command: req.Command, RequiresApproval: true, SandboxDenied: denied},
	})
	if err != nil {
		return tools.Result{}, fmt.Errorf("execute_command: approval: %w", err)
	}
	if !ans.Approved {
		res.Text += "\n\n" + render("sandbox.explained", why)
		return res, nil
	}
	wider := d.Widen(pol)
	req.Sandbox = &wider
	again, err := t.execute(ctx, env, req, ans.Text, timeout, background)
	if err != nil {
		return again, err
	}
	again.Text = render("sandbox.rerun", deniedData{Why: why, Access: d.Access()}) + "\n\n" + again.Text
	return again, nil
}

// deniedData feeds the sandbox.* blocks.
type deniedData struct {
	Why, Access string
}

// readsIgnored reports the first file, if any, that a simple reading command in command
// (cat, head, grep, …; see shellcmd.Script.Reads) would print although the workspace's
// ignore file hides it from read_file. A line that does not parse is left to the approval,
// which always asks about it.
func readsIgnored(files tools.Files, command string) (string, bool) {
	if files == nil {
		return "", false
	}
	script, err := shellcmd.Parse(command)
	if err != nil {
		return "", false
	}
	abs, blocked := script.FirstIgnored(files.Root(), func(abs string) bool {
		if files.Ignored(abs) {
			return true
		}
		// The file may be a link into an ignored folder.
		resolved, _, err := files.Resolve(abs)
		return err == nil && resolved != abs && files.Ignored(resolved)
	})
	if !blocked {
		return "", false
	}
	return files.Rel(abs), true
}

// follower streams one command's output to the chat and builds the result. The chat row and
// the result show the tracked command's bounded view, never the whole output: a command that
// prints gigabytes leaves a row of the same size as one that prints a page.
type follower struct {
	env      *tools.Env
	tracked  *Tracked
	sent     int64 // output bytes already said to the chat
	feedback string
	// background: the command was started with background, so following ends at its first
	// output or after backgroundWait.
	background bool
}

// backgroundWait is how long a command started with background is followed at most before
// the tool returns (README "Commands that keep running").
const backgroundWait = 3 * time.Second

type askReply struct {
	ans tools.Answer
	err error
}

// ending says why following stopped while the command still had to finish.
type ending int

const (
	endExited ending = iota
	endTimeout
	endStopped
)

func (f *follower) follow(ctx context.Context, timeout time.Duration) (tools.Result, error) {
	var timeoutC <-chan time.Time
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		timeoutC = timer.C
	}
	// A command with its own timeout is stopped by it; any other moves to the background
	// once it ran for the wait limit (or at once for background, see below).
	var waitC <-chan time.Time
	wait := f.tracked.reg.Wait()
	if f.background {
		wait = backgroundWait
	}
	if wait > 0 && (timeout <= 0 || f.background) {
		timer := time.NewTimer(wait)
		defer timer.Stop()
		waitC = timer.C
	}
	flush := time.NewTimer(flushEvery)
	flush.Stop()
	defer flush.Stop()
	var flushC <-chan time.Time

	// The "proceed while running" ask is posted once there is output to look at. Its
	// goroutine uses env, so it is always waited for before returning.
	askCtx, askCancel := context.WithCancel(ctx)
	var (
		askCh chan askReply
		asked bool
	)
	defer func() {
		askCancel()
		if askCh != nil {
			<-askCh
		}
	}()

	why := endExited
	for {
		changed := f.tracked.Changed()
		// The view holds the output; taking it only marks it seen, so environment details
		// do not report it again.
		text, done := f.tracked.Take()
		if text != "" {
			// While the row only grows, clients get appended text and a few KB is worth a
			// send; once the view elides, each update replaces the row, so only the timer
			// sends.
			if f.tracked.Size() < int64(f.byteLimit()) && f.tracked.Size()-f.sent >= flushBytes {
				f.say(ctx, true)
				flush.Stop()
				flushC = nil
			} else if flushC == nil {
				flush.Reset(flushEvery)
				flushC = flush.C
			}
			if f.background && !done {
				// The first output is in: the model gets it with the command's id.
				return f.detach(ctx, "result.background"), nil
			}
			if !asked {
				asked = true
				askCh = make(chan askReply, 1)
				go func() {
					ans, err := f.env.UI.Ask(askCtx, msg.AskCommandOutput, "", &msg.CommandOutput{Running: true})
					askCh <- askReply{ans, err}
				}()
			}
		}
		if done {
			break
		}
		select {
		case <-changed:
		case <-flushC:
			flushC = nil
			f.say(ctx, true)
		case rep := <-askCh:
			askCh = nil
			switch {
			case rep.err != nil:
				// The ask failed or ctx ended; the ctx case reports the latter.
			case rep.ans.Approved || rep.ans.Text != "":
				f.addFeedback(rep.ans.Text)
				return f.detach(ctx, "result.running"), nil
			default:
				why = endStopped
				if err := f.tracked.Kill(); err != nil {
					return tools.Result{}, fmt.Errorf("execute_command: %w", err)
				}
			}
		case <-waitC:
			name := "result.moved"
			if f.background {
				name = "result.background"
			}
			return f.detach(ctx, name), nil
		case <-timeoutC:
			timeoutC = nil
			why = endTimeout
			if err := f.tracked.Kill(); err != nil {
				return tools.Result{}, fmt.Errorf("execute_command: %w", err)
			}
		case <-ctx.Done():
			_ = f.tracked.Kill() // best effort; the cancellation is what gets reported
			f.sayFinal(context.WithoutCancel(ctx), -1)
			return tools.Result{}, fmt.Errorf("execute_command: %w", ctx.Err())
		}
	}

	// The command ended: withdraw the open ask, keeping text the user typed meanwhile.
	if askCh != nil {
		askCancel()
		if rep := <-askCh; rep.err == nil {
			f.addFeedback(rep.ans.Text)
		}
		askCh = nil
	}
	code := f.tracked.ExitCode()
	f.sayFinal(ctx, code)
	data := resultData{Code: code, Seconds: int(timeout / time.Second), Output: f.modelOutput()}
	name := map[ending]string{endExited: "result.done", endTimeout: "result.timeout", endStopped: "result.stopped"}[why]
	return tools.Result{Text: render(name, data), UserFeedback: f.feedback}, nil
}

// detach ends following while the command keeps running; the registry keeps its output and
// environment details report what follows. name is the result block that says why.
func (f *follower) detach(ctx context.Context, name string) tools.Result {
	f.tracked.detach()
	out := f.tracked.View()
	f.env.UI.Say(ctx, msg.SayCommandOutput, out, &msg.CommandOutput{Output: out, Running: true, ID: f.tracked.ID()}, false)
	f.sent = f.tracked.Size()
	f.env.UI.Say(ctx, msg.SayInfo, render("row.background", rowData{ID: f.tracked.ID(), Command: f.tracked.Command()}), nil, false)
	data := resultData{ID: f.tracked.ID(), Output: f.modelOutput(), Seconds: int(f.tracked.reg.Wait() / time.Second)}
	return tools.Result{Text: render(name, data), UserFeedback: f.feedback}
}

// say updates the streaming row with the view so far (the loop sends clients only the
// appended part while the row just grows); the payload comes with the final say.
func (f *follower) say(ctx context.Context, partial bool) {
	size := f.tracked.Size()
	if size == f.sent {
		return
	}
	f.env.UI.Say(ctx, msg.SayCommandOutput, f.tracked.View(), nil, partial)
	f.sent = size
}

func (f *follower) sayFinal(ctx context.Context, code int) {
	out := f.tracked.View()
	f.env.UI.Say(ctx, msg.SayCommandOutput, out, &msg.CommandOutput{Output: out, ExitCode: &code}, false)
	f.sent = f.tracked.Size()
}

func (f *follower) byteLimit() int {
	if n := f.env.Settings.OutputByteLimit; n > 0 {
		return n
	}
	return DefaultByteLimit
}

func (f *follower) modelOutput() string {
	return strings.TrimRight(f.tracked.View(), " \t\n")
}

func (f *follower) addFeedback(text string) {
	text = strings.TrimSpace(text)
	switch {
	case text == "":
	case f.feedback == "":
		f.feedback = text
	default:
		f.feedback += "\n\n" + text
	}
}
