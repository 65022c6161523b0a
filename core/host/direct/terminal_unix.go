//go:build unix

package direct

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/tools"
)

// ptySize is wide so programs that format to the terminal width do not wrap lines the model
// then has to stitch back together.
var ptySize = &pty.Winsize{Rows: 50, Cols: 200}

// Run starts req.Command in its own process group. Cancelling ctx stops the group (SIGTERM,
// then SIGKILL after Grace); so does Kill on the returned process. Outside the command
// sandbox, on Linux, that includes what left the group (tagVar).
func (t *Terminal) Run(ctx context.Context, req tools.CommandRequest) (tools.Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("direct: run: %w", err)
	}
	var (
		out *os.File
		cmd *exec.Cmd
		rep *sandbox.ExitReport
		err error
	)
	tag := ""
	if req.Sandbox == nil {
		tag = newTag() // a sandboxed command's processes cannot leave its pid namespace
	}
	if !t.noPTY {
		if cmd, rep, err = t.command(req, tag); err != nil {
			return nil, err
		}
		out, err = startPTY(cmd, rep != nil)
		if err != nil && !errors.Is(err, errNoPTY) {
			if rep != nil {
				rep.Close()
			}
			return nil, fmt.Errorf("direct: start %s: %w", t.Shell, err)
		}
	}
	if out == nil {
		if rep != nil {
			rep.Close()
		}
		if cmd, rep, err = t.command(req, tag); err != nil {
			return nil, err
		}
		out, err = startPipes(cmd)
		if err != nil {
			if rep != nil {
				rep.Close()
			}
			return nil, fmt.Errorf("direct: start %s: %w", t.Shell, err)
		}
	}
	forget := func() {}
	if rep != nil {
		rep.Started()
	} else if forget, err = t.Ledger.add(cmd.Process.Pid); err != nil {
		// Unrecorded, it could outlive a killed daemon: it does not run at all. A group that
		// could not be killed is said with the error, since it may still run.
		kerr := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(kerr, syscall.ESRCH) {
			kerr = nil
		}
		_ = cmd.Wait() // killed: its status says nothing
		return nil, errors.Join(fmt.Errorf("direct: record the command for the next daemon: %w", err), kerr, out.Close())
	}
	grace := t.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	p := &process{
		pgid:   cmd.Process.Pid, // Setsid/Setpgid make the child its group's leader
		tag:    tag,
		grace:  grace,
		out:    newOutPipe(),
		exited: make(chan struct{}),
		code:   -1,
		forget: forget,
	}
	go p.wait(cmd, out, rep)
	go p.read(out)
	go func() {
		select {
		case <-ctx.Done():
			_ = p.Kill() // best effort: the group may be gone already
		case <-p.exited:
		}
	}()
	return p, nil
}

func defaultShell() string {
	if s := os.Getenv("SHELL"); s != "" {
		return s
	}
	return "/bin/sh"
}

// command builds the shell process for req; with req.Sandbox it is Cairn's sandbox launcher
// running the shell (core/sandbox), which reports the shell's exit on rep while it keeps what
// the shell left running (`server &`) alive. A tag ("" for none) goes into the environment
// (withTag). The start functions add to SysProcAttr, never replace it.
func (t *Terminal) command(req tools.CommandRequest, tag string) (cmd *exec.Cmd, rep *sandbox.ExitReport, err error) {
	cmd = exec.Command(t.Shell, "-c", req.Command)
	cmd.Dir = req.Cwd
	cmd.Env = childEnv(os.Environ(), t.secrets())
	if tag != "" {
		cmd.Env = withTag(cmd.Env, tag)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if req.Sandbox != nil {
		if err := sandbox.Apply(cmd, *req.Sandbox); err != nil {
			return nil, nil, fmt.Errorf("direct: %w", err)
		}
		if rep, err = sandbox.ReportExit(cmd); err != nil {
			return nil, nil, fmt.Errorf("direct: %w", err)
		}
	}
	return cmd, rep, nil
}

// errNoPTY marks a failure to allocate a pseudo-terminal, after which pipes are used instead.
var errNoPTY = errors.New("no pseudo-terminal available")

// startPTY starts cmd with a new PTY as its output and returns the master side. Nothing is
// ever written to the master: commands are not interactive.
//
// The command leads a session with the PTY as its controlling terminal, so a program that
// opens /dev/tty (a password prompt, stty) reaches the PTY, whose output the model reads,
// never the terminal `cairn run` was started in. A controlling process that exits hangs up
// its terminal's foreground group, which is everything the shell started: the sandbox's
// launcher (launcher true) outlives what the shell leaves running, and a shell without it
// starts with the hangup ignored (hupIgnored), as nohup would, so that `server &` runs on
// and is kept (README, "Commands that keep running").
func startPTY(cmd *exec.Cmd, launcher bool) (*os.File, error) {
	master, tty, err := pty.Open()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errNoPTY, err)
	}
	_ = pty.Setsize(master, ptySize) // cosmetic; the default size works too
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setctty = true, true
	if !launcher {
		hupIgnored(cmd)
	}
	err = cmd.Start()
	_ = tty.Close() // the child holds its own copies; ours would keep EOF from ever arriving
	if err != nil {
		_ = master.Close()
		return nil, err
	}
	return pollable(master), nil
}

// hupIgnoredScript ignores the hangup and runs its arguments in its place: an ignored signal
// stays ignored through exec, in the command and in everything it starts.
const hupIgnoredScript = `trap '' HUP; exec "$@"`

// hupIgnored makes cmd start through /bin/sh with SIGHUP ignored (hupIgnoredScript). The
// shell replaces itself with cmd's program, so the process Cairn waits for and the group it
// stops are the same as without it.
func hupIgnored(cmd *exec.Cmd) {
	args := append([]string{"sh", "-c", hupIgnoredScript, "sh", cmd.Path}, cmd.Args[1:]...)
	cmd.Path, cmd.Args = "/bin/sh", args
}

// pollable returns f re-opened in non-blocking mode so read deadlines work on it. pty.Open
// leaves the master in blocking mode (it calls Fd), where a Read cannot be interrupted.
func pollable(f *os.File) *os.File {
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return f
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		_ = syscall.Close(fd)
		return f
	}
	name := f.Name()
	_ = f.Close()
	return os.NewFile(uintptr(fd), name)
}

// startPipes is the fallback without a PTY: stdout and stderr share one pipe so their order is
// kept, stdin is empty, and the child leads a new process group.
func startPipes(cmd *exec.Cmd) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		_, _ = r.Close(), w.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, w, w
	cmd.SysProcAttr.Setpgid = true
	err = cmd.Start()
	_, _ = w.Close(), devnull.Close()
	if err != nil {
		_ = r.Close()
		return nil, err
	}
	return r, nil
}

// leftoverPoll is how often a finished command's terminal looks whether what the command
// left running has ended.
const leftoverPoll = 250 * time.Millisecond

// process is one started command. It implements tools.Process, and on Linux
// tools.MemberProcess.
type process struct {
	pgid int
	// tag marks the command's processes (tagVar); "" for a sandboxed command.
	tag   string
	grace time.Duration
	out   *outPipe
	// exited is closed once the shell was reaped; code is set before.
	exited   chan struct{}
	code     int
	escalate sync.Once
	// forget removes the group's ledger record once the group is gone.
	forget func()
	// escapes follows the processes that left the group (Linux only, escape_linux.go).
	escapes escapes
}

// forgetIfGone removes the ledger record when nothing of the group runs any more.
func (p *process) forgetIfGone() {
	if syscall.Kill(-p.pgid, 0) != nil {
		p.forget()
	}
}

func (p *process) Output() io.Reader { return p.out }

// Wait returns the exit code: the shell's status, or 128+signal when a signal ended it, the
// way shells report it.
func (p *process) Wait(ctx context.Context) (int, error) {
	select {
	case <-p.exited:
		return p.code, nil
	case <-ctx.Done():
		return -1, fmt.Errorf("direct: wait: %w", ctx.Err())
	}
}

// Kill sends SIGTERM to the whole group and to the processes that left it (on Linux,
// escape_linux.go), and SIGKILL after the grace period if anything of them is left. A group
// that is already gone is not an error.
func (p *process) Kill() error {
	err := syscall.Kill(-p.pgid, syscall.SIGTERM)
	escaped, eerr := p.signalEscaped(syscall.SIGTERM)
	if errors.Is(err, syscall.ESRCH) {
		err = nil
		if escaped == 0 && eerr == nil {
			return nil
		}
	}
	if err != nil {
		err = fmt.Errorf("direct: kill group %d: %w", p.pgid, err)
	}
	if err = errors.Join(err, eerr); err != nil {
		return err
	}
	p.escalate.Do(func() { go p.killAfterGrace() })
	return nil
}

func (p *process) killAfterGrace() {
	timer := time.NewTimer(p.grace)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-p.exited:
		if !p.left() {
			p.forget()
			return // the whole group went away on SIGTERM, and what left it too
		}
		<-timer.C
	}
	_ = syscall.Kill(-p.pgid, syscall.SIGKILL) // ESRCH just means it ended meanwhile
	_, _ = p.signalEscaped(syscall.SIGKILL)    // best effort, as for the group
	p.forget()
}

func (p *process) wait(cmd *exec.Cmd, out *os.File, rep *sandbox.ExitReport) {
	if rep != nil {
		if code, ok := rep.Wait(); ok {
			// The shell ended; the launcher stays while what it left runs, and is reaped then.
			p.code = code
			close(p.exited)
			_ = out.SetReadDeadline(time.Now().Add(drainIdle))
			_ = cmd.Wait() // the launcher's own status repeats the code
			return
		}
	}
	_ = cmd.Wait() // a non-zero status is reported through the code, not as an error
	if st := cmd.ProcessState; st != nil {
		if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			p.code = 128 + int(ws.Signal())
		} else {
			p.code = st.ExitCode()
		}
	}
	close(p.exited)
	p.forgetIfGone() // what the shell left running keeps its record
	// Wake a reader blocked on a PTY still held open by an orphaned background job; bytes
	// already written keep arriving and extend the deadline.
	_ = out.SetReadDeadline(time.Now().Add(drainIdle))
}

// read copies the command's output into the pipe until EOF (pipes), EIO (a PTY whose last
// slave closed), or, once the shell exited, drainIdle without new bytes.
//
// The master side of a PTY is closed only after the shell was reaped. A command that the shell
// execs (bash runs `touch m1` in its own process) closes its last slave descriptor while it
// exits, before its parent can collect the status; EIO arrives in that window, and closing the
// master then hangs up the terminal while the session leader is still there to be sent
// SIGHUP: one `touch` in a few dozen ended "killed by SIGHUP" (129) although it exited 0.
func (p *process) read(f *os.File) {
	buf := make([]byte, 32*1024)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			p.out.write(buf[:n])
			select {
			case <-p.exited:
				_ = f.SetReadDeadline(time.Now().Add(drainIdle))
			default:
			}
		}
		if err != nil {
			// EOF, EIO or the post-exit deadline: in every case all that was written is in.
			break
		}
	}
	p.out.close()
	// A command that closed its output but runs on (a daemon) keeps its terminal until it
	// ends or is killed, as it would in the user's terminal; so does what it left running
	// in its group (`server &`, the sandbox's launcher keeping it) or outside it (left):
	// closing the terminal would hang them up (README, "Commands that keep running").
	<-p.exited
	for p.left() {
		time.Sleep(leftoverPoll)
	}
	_ = f.Close() // read-only; nothing is lost if closing fails
}

// Group returns the command's process group id (tools.GroupProcess).
func (p *process) Group() int { return p.pgid }
