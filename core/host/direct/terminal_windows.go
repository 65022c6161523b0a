//go:build windows

package direct

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/windows"

	"github.com/cairnhq/cairn/core/internal/winjob"
	"github.com/cairnhq/cairn/core/tools"
)

// defaultShell is the user's command interpreter: %ComSpec%, else cmd.exe.
func defaultShell() string {
	if s := os.Getenv("ComSpec"); s != "" {
		return s
	}
	return "cmd.exe"
}

// Run starts req.Command through the shell with its output on a pipe (Windows has no PTY
// that a daemon without a console could hand a child cheaply; stdout and stderr share the
// pipe so their order is kept, stdin is empty). The shell and everything it starts run in a
// job object: cancelling ctx, or Kill, ends the whole job at once, since Windows has no
// SIGTERM to send first. The job ends when its last handle, the daemon's, is closed
// (winjob.End), so no command outlives its daemon however the daemon ends (README,
// "Commands that keep running").
func (t *Terminal) Run(ctx context.Context, req tools.CommandRequest) (tools.Process, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("direct: run: %w", err)
	}
	cmd := exec.Command(t.Shell)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CmdLine:       cmdLine(t.Shell, req.Command),
		CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW,
	}
	cmd.Dir = req.Cwd
	cmd.Env = childEnv(os.Environ(), t.secrets())
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("direct: start %s: %w", t.Shell, err)
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return nil, fmt.Errorf("direct: start %s: %w", t.Shell, errors.Join(err, r.Close(), w.Close()))
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, w, w
	err = cmd.Start()
	// The child holds its own copies; ours would keep EOF from ever arriving.
	cerr := errors.Join(w.Close(), devnull.Close())
	if err != nil {
		return nil, fmt.Errorf("direct: start %s: %w", t.Shell, errors.Join(err, cerr, r.Close()))
	}
	// Without a job only the shell itself can be ended; that is still worth running.
	job, _ := winjob.Assign(cmd.Process.Pid, winjob.End)
	p := &process{proc: cmd.Process, job: job, out: newOutPipe(), exited: make(chan struct{}), code: -1}
	go p.wait(cmd)
	go p.read(r)
	go func() {
		select {
		case <-ctx.Done():
			_ = p.Kill() // best effort: the process may be gone already
		case <-p.exited:
		}
	}()
	return p, nil
}

// process is one started command. It implements tools.Process.
type process struct {
	proc *os.Process
	// mu guards job, which is 0 when the process could not be put in a job or once the job
	// was closed, empty, after the output ended.
	mu  sync.Mutex
	job windows.Handle
	out *outPipe
	// exited is closed once the shell was reaped; code is set before.
	exited chan struct{}
	code   int
	// reads counts reads that brought bytes, so the drain knows whether output still flows.
	reads atomic.Int64
	// readDone is set once the output pipe reached its end.
	readDone atomic.Bool
}

func (p *process) Output() io.Reader { return p.out }

// Wait returns the shell's exit code (1 when Kill ended it: TerminateJobObject's code).
func (p *process) Wait(ctx context.Context) (int, error) {
	select {
	case <-p.exited:
		return p.code, nil
	case <-ctx.Done():
		return -1, fmt.Errorf("direct: wait: %w", ctx.Err())
	}
}

// Kill ends the job: the shell and every process it started. An ended job is not an error.
func (p *process) Kill() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.job == 0 {
		select {
		case <-p.exited:
			return nil
		default:
		}
		if err := p.proc.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return fmt.Errorf("direct: kill: %w", err)
		}
		return nil
	}
	if err := windows.TerminateJobObject(p.job, 1); err != nil {
		return fmt.Errorf("direct: kill job: %w", err)
	}
	if p.readDone.Load() { // read kept the job for what the command left running: it ended now
		_ = windows.CloseHandle(p.job) // a handle only
		p.job = 0
	}
	return nil
}

func (p *process) wait(cmd *exec.Cmd) {
	_ = cmd.Wait() // a non-zero status is reported through the code, not as an error
	if st := cmd.ProcessState; st != nil {
		p.code = st.ExitCode()
	}
	close(p.exited)
	// An anonymous pipe has no read deadline: a background child that still holds it would
	// keep the reader blocked. Once the shell is gone, output that stops flowing for drainIdle
	// ends the stream; the blocked read ends with the child.
	for {
		before := p.reads.Load()
		time.Sleep(drainIdle)
		if p.readDone.Load() || p.reads.Load() == before {
			break
		}
	}
	p.out.close()
}

// read copies the command's output into the pipe until the pipe ends, then closes the job
// if nothing runs in it any more. Closing it would end what the command left running
// (winjob.End): that stays in the job, which Kill or the daemon's exit ends.
func (p *process) read(f *os.File) {
	buf := make([]byte, 32*1024)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			p.out.write(buf[:n])
			p.reads.Add(1)
		}
		if err != nil {
			break
		}
	}
	p.readDone.Store(true)
	p.out.close()
	<-p.exited
	_ = f.Close() // read-only; nothing is lost if closing fails
	p.mu.Lock()
	if p.job != 0 {
		if n, err := winjob.Active(p.job); err == nil && n == 0 {
			_ = windows.CloseHandle(p.job) // empty: nothing is ended by closing it
			p.job = 0
		}
	}
	p.mu.Unlock()
}
