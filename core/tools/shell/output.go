package shell

import (
	"errors"
	"fmt"
	"os"
)

// Limits bound what of a command's output the chat and the model see, and say where the whole
// of it may be saved.
type Limits struct {
	// Lines and Bytes cap the view (<= 0: DefaultLineLimit, DefaultByteLimit).
	Lines, Bytes int
	// Dir is a folder the task owns where the whole output is saved once the view has to leave
	// something out; "" keeps only the view.
	Dir string
}

// fullOutput keeps a command's whole cleaned output. While the view still shows everything it
// only holds the bytes in memory (they are within the view's caps); once the view leaves
// something out, they go to a new file in the task's folder and every later byte follows.
type fullOutput struct {
	dir  string
	held []byte
	f    *os.File
	path string
	err  error // the first failure; nothing more is written after it
	// lost is set when the view left something out and there is no folder to save the
	// whole output in: only the view remains.
	lost bool
}

// write adds p. spill is set once the view left something out: the file must exist.
func (o *fullOutput) write(p []byte, spill bool) {
	if o.err != nil || o.lost {
		return
	}
	if o.f == nil {
		o.held = append(o.held, p...)
		if !spill {
			return
		}
		if o.dir == "" {
			o.held, o.lost = nil, true
			return
		}
		if err := o.open(); err != nil {
			o.fail(err)
			return
		}
		p, o.held = o.held, nil
	}
	if _, err := o.f.Write(p); err != nil {
		o.fail(fmt.Errorf("shell: save output: %w", err))
	}
}

func (o *fullOutput) open() error {
	if err := os.MkdirAll(o.dir, 0o700); err != nil {
		return fmt.Errorf("shell: save output: %w", err)
	}
	f, err := os.CreateTemp(o.dir, "command-*.log")
	if err != nil {
		return fmt.Errorf("shell: save output: %w", err)
	}
	o.f, o.path = f, f.Name()
	return nil
}

// fail records err and stops saving; a half-written file is removed so the model is never
// pointed at an incomplete copy.
func (o *fullOutput) fail(err error) {
	o.err = err
	o.held = nil
	if o.f != nil {
		_ = o.f.Close() // the write already failed; that is the error reported
		_ = os.Remove(o.path)
		o.f, o.path = nil, ""
	}
}

// close ends the file once the command finished. Output still held in memory stays: it is
// within the view's caps, and read_command_output may ask for part of it later.
func (o *fullOutput) close() {
	if o.f == nil {
		return
	}
	if err := o.f.Close(); err != nil {
		o.fail(fmt.Errorf("shell: save output: %w", err))
		return
	}
	o.f = nil
}

// errNotKept says the whole output was not kept, so only the view can be shown.
var errNotKept = errors.New("the whole output was not kept")

// text returns the whole output so far. o's owner's lock is held; reading a file that is still
// being written gives what was written so far.
func (o *fullOutput) text() (string, error) {
	switch {
	case o.err != nil:
		return "", o.err
	case o.lost:
		return "", errNotKept
	case o.path != "":
		b, err := os.ReadFile(o.path)
		if err != nil {
			return "", fmt.Errorf("shell: read saved output: %w", err)
		}
		return string(b), nil
	}
	return string(o.held), nil
}
