package shell

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/tools"
)

// Check is a task's "done when" command (README, "Done when"): the completion tool runs it
// when the model presents its result, and accepts the result only when it exits 0. It runs in
// the task's first root (its worktree, for a worktree task) in the command sandbox's workspace
// tier, with the network as for auto-approved commands (docs/sandbox.md); where no sandbox can
// be set up it runs plainly, since the user named the command. Its output is bounded as a
// command's output is for the model.
type Check struct {
	tool    *Tool
	command string
}

// NewCheck returns the check that runs command with the sandbox settings of reg.
func NewCheck(reg *Registry, command string) *Check {
	return &Check{tool: New(reg), command: command}
}

// Command is the check's command line as the user gave it.
func (c *Check) Command() string { return c.command }

// checkNetworkRule names the setting behind a check's network, for the explanation of a denial.
const checkNetworkRule = "the network of the \"done when\" check follows the sandboxNetwork setting (cairn run --network)"

// Run runs the command to its end and returns its exit code and bounded output. An error means
// it could not run at all (no terminal, the sandbox's policy could not be made, ctx ended).
func (c *Check) Run(ctx context.Context, env *tools.Env) (int, string, error) {
	if env.Host == nil || env.Host.Terminal() == nil {
		return 0, "", ErrNoTerminal
	}
	req := tools.CommandRequest{Command: c.command, Cwd: env.Files.Root()}
	if pl := c.tool.planFor(); pl.confined {
		base, err := c.tool.base(env, pl)
		if err != nil {
			return 0, "", fmt.Errorf("done check: sandbox: %w", err)
		}
		pol := base.Policy(sandbox.Workspace, pl.cfg.Network, checkNetworkRule)
		req.Sandbox = &pol
	}
	proc, err := env.Host.Terminal().Run(ctx, req)
	if err != nil {
		return 0, "", fmt.Errorf("done check: start: %w", err)
	}
	v := newView(env.Settings.OutputLineLimit, env.Settings.OutputByteLimit)
	buf := make([]byte, 32*1024)
	out := proc.Output()
	for {
		n, rerr := out.Read(buf)
		v.write(buf[:n])
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return 0, "", errors.Join(fmt.Errorf("done check: output: %w", rerr), proc.Kill())
		}
	}
	code, err := proc.Wait(ctx)
	if err != nil {
		return 0, "", fmt.Errorf("done check: %w", err)
	}
	text := v.render(func(n int, size int64) string { return render("omitted", omittedData{Lines: n, Size: humanSize(size)}) })
	return code, cleanText([]byte(text)), nil
}
