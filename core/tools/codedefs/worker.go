package codedefs

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/cairnhq/cairn/core/helper"
	"github.com/cairnhq/cairn/core/internal/tailbuf"
)

// idleExit is how long the parsing helper waits for its next request before it is let go. A
// grammar's query compiles in the helper at its first use there, in up to hundreds of
// milliseconds for the largest grammars, so the helper outlives one call: the calls of a
// stretch of work find it warm, and a daemon left alone holds no helper.
var idleExit = 2 * time.Minute

// parser is the daemon's one parsing helper, started on the first request.
var parser worker

// worker runs `cairn-helper code-definitions` and asks it one request at a time.
type worker struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	stdin  *os.File // the write end of the helper's stdin
	stdout *os.File // the read end of the helper's stdout
	reader *bufio.Reader
	stderr *tailbuf.Buffer
	exited chan struct{} // closed once the helper has exited and been waited for
	status error         // how it exited (cmd.Wait's error), once exited is closed
	idle   *time.Timer
	gen    int // bumped at every start, so an idle timer of an earlier helper does nothing

	// command makes the helper's command; nil is cairn-helper (tests stand in a crashing one).
	command func() (*exec.Cmd, error)
}

// parse has the helper parse the files at paths (absolute). Cancelling ctx stops the helper;
// the next request starts another.
func parse(ctx context.Context, paths []string) ([]Parsed, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	return parser.parse(ctx, paths)
}

func (w *worker) parse(ctx context.Context, paths []string) ([]Parsed, error) {
	req, err := json.Marshal(paths)
	if err != nil {
		return nil, fmt.Errorf("codedefs: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("codedefs: %w", err)
	}
	if w.cmd != nil {
		select {
		case <-w.exited:
			// It ended while idle (killed from outside, out of memory): start another. What it
			// said on the way out is the log's, no request's.
			if err := w.stop(); err != nil {
				slog.Warn("codedefs: the parsing helper had ended", "err", err)
			}
		default:
		}
	}
	if w.cmd == nil {
		if err := w.start(); err != nil {
			return nil, err
		}
	}
	w.idle.Stop()
	type reply struct {
		line []byte
		err  error
	}
	done := make(chan reply, 1)
	go func() {
		if _, err := w.stdin.Write(append(req, '\n')); err != nil {
			done <- reply{err: err}
			return
		}
		line, err := w.reader.ReadBytes('\n')
		done <- reply{line: line, err: err}
	}()
	var r reply
	select {
	case r = <-done:
	case <-ctx.Done():
		// Killing the helper only loses the parse nobody waits for any more; its stdout then
		// ends, and with it the goroutine above.
		err := kill(w.cmd)
		<-done
		return nil, fmt.Errorf("codedefs: %w", errors.Join(ctx.Err(), err, w.stop()))
	}
	if r.err != nil {
		// The helper died during the request (a grammar crashed on some file): this request
		// fails with how it ended and what it said, and the next one starts a fresh helper.
		said := w.stderr
		err := w.stop()
		msg := said.String()
		if msg != "" {
			msg = ": " + msg
		}
		return nil, fmt.Errorf("codedefs: cairn-helper %s: %w%s", HelperCommand, errors.Join(r.err, err), msg)
	}
	w.idle.Reset(idleExit)
	var ans Answer
	if err := json.Unmarshal(r.line, &ans); err != nil {
		return nil, fmt.Errorf("codedefs: the helper's answer: %w", errors.Join(err, w.stop()))
	}
	if ans.Error != "" {
		return nil, fmt.Errorf("codedefs: %s", ans.Error)
	}
	return ans.Files, nil
}

// start starts the helper. Its stdin and stdout are pipes of our own, not exec's, so the
// process can be waited for as soon as it exits without closing what is still to be read.
// w.mu is held.
func (w *worker) start() error {
	command := w.command
	if command == nil {
		command = func() (*exec.Cmd, error) { return helper.Command(context.Background(), HelperCommand) }
	}
	cmd, err := command()
	if err != nil {
		return fmt.Errorf("codedefs: %w", err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("codedefs: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("codedefs: %w", errors.Join(err, inR.Close(), inW.Close()))
	}
	stderr := tailbuf.New(4 << 10)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, stderr
	err = cmd.Start()
	// The child has its own copies of its ends; ours close whether it started or not.
	closed := errors.Join(inR.Close(), outW.Close())
	if err != nil {
		return fmt.Errorf("codedefs: starting cairn-helper: %w", errors.Join(err, closed, inW.Close(), outR.Close()))
	}
	exited := make(chan struct{})
	w.cmd, w.stdin, w.stdout, w.reader, w.stderr, w.exited = cmd, inW, outR, bufio.NewReader(outR), stderr, exited
	go func() {
		// Read after exited is closed: stop reports it.
		w.status = cmd.Wait()
		close(exited)
	}()
	w.gen++
	gen := w.gen
	w.idle = time.AfterFunc(idleExit, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.gen == gen && w.cmd != nil {
			if err := w.stop(); err != nil {
				slog.Warn("codedefs: stopping the idle parsing helper", "err", err)
			}
		}
	})
	return nil
}

// stop ends the helper: its stdin closes, which ends it when it is waiting, and it is killed
// if it has not ended a second later. The error says how it ended when that was not of its
// own accord at the end of its input. w.mu is held.
func (w *worker) stop() error {
	w.idle.Stop()
	errs := []error{w.stdin.Close()}
	select {
	case <-w.exited:
	case <-time.After(time.Second):
		errs = append(errs, kill(w.cmd))
		<-w.exited
	}
	if w.status != nil {
		errs = append(errs, fmt.Errorf("cairn-helper %s exited: %w", HelperCommand, w.status))
	}
	errs = append(errs, w.stdout.Close())
	w.cmd, w.stdin, w.stdout, w.reader, w.status = nil, nil, nil, nil, nil
	return errors.Join(errs...)
}

// kill kills the helper; one that has already exited is not an error.
func kill(cmd *exec.Cmd) error {
	if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("killing cairn-helper: %w", err)
	}
	return nil
}
