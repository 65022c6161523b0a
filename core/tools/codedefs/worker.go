package codedefs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/cairnhq/cairn/core/helper"
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
	stderr *tail
	exited chan struct{} // closed once the helper has exited and been waited for
	idle   *time.Timer
	gen    int // bumped at every start, so an idle timer of an earlier helper does nothing
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
			// It ended while idle (killed from outside, out of memory): start another.
			w.stop()
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
		_ = w.cmd.Process.Kill()
		<-done
		w.stop()
		return nil, fmt.Errorf("codedefs: %w", ctx.Err())
	}
	if r.err != nil {
		// The helper died during the request (a grammar crashed on some file): this request
		// fails with what it said, and the next one starts a fresh helper.
		said := w.stderr
		w.stop()
		if msg := said.String(); msg != "" {
			return nil, fmt.Errorf("codedefs: cairn-helper %s: %w: %s", HelperCommand, r.err, msg)
		}
		return nil, fmt.Errorf("codedefs: cairn-helper %s: %w", HelperCommand, r.err)
	}
	w.idle.Reset(idleExit)
	var ans Answer
	if err := json.Unmarshal(r.line, &ans); err != nil {
		w.stop()
		return nil, fmt.Errorf("codedefs: the helper's answer: %w", err)
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
	cmd, err := helper.Command(context.Background(), HelperCommand)
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
	stderr := &tail{}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, stderr
	err = cmd.Start()
	// The child has its own copies of its ends; ours close whether it started or not.
	closed := errors.Join(inR.Close(), outW.Close())
	if err != nil {
		return fmt.Errorf("codedefs: starting cairn-helper: %w", errors.Join(err, closed, inW.Close(), outR.Close()))
	}
	exited := make(chan struct{})
	go func() {
		// How it ended says nothing a request has not said already.
		_ = cmd.Wait()
		close(exited)
	}()
	w.cmd, w.stdin, w.stdout, w.reader, w.stderr, w.exited = cmd, inW, outR, bufio.NewReader(outR), stderr, exited
	w.gen++
	gen := w.gen
	w.idle = time.AfterFunc(idleExit, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.gen == gen && w.cmd != nil {
			w.stop()
		}
	})
	return nil
}

// stop ends the helper: its stdin closes, which ends it when it is waiting, and it is killed
// if it has not ended a second later. w.mu is held.
func (w *worker) stop() {
	w.idle.Stop()
	// Closing our ends of the pipes loses nothing: every answer asked for has been read.
	_ = w.stdin.Close()
	select {
	case <-w.exited:
	case <-time.After(time.Second):
		_ = w.cmd.Process.Kill()
		<-w.exited
	}
	_ = w.stdout.Close()
	w.cmd, w.stdin, w.stdout, w.reader = nil, nil, nil, nil
}

// tail keeps the last few kilobytes written to it: a failed helper's stderr, for the error.
type tail struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

const tailBytes = 4 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf.Write(p)
	if extra := t.buf.Len() - tailBytes; extra > 0 {
		t.buf.Next(extra)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(t.buf.String())
}
