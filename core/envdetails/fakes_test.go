package envdetails

import (
	"context"
	"io"
	"sync"
	"testing"

	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/shell"
)

// fakeEditor is an editor showing fixed files.
type fakeEditor struct {
	visible, tabs []string
	err           error
}

func (e *fakeEditor) VisibleFiles(context.Context) ([]string, error) { return e.visible, e.err }
func (e *fakeEditor) OpenTabs(context.Context) ([]string, error)     { return e.tabs, e.err }
func (e *fakeEditor) Diagnostics(context.Context, []string) ([]tools.Diagnostic, error) {
	return nil, nil
}
func (e *fakeEditor) OpenFile(context.Context, string, int) error        { return nil }
func (e *fakeEditor) ShowMessage(context.Context, string, string) error  { return nil }
func (e *fakeEditor) WorkspaceFolders(context.Context) ([]string, error) { return nil, nil }

// fakeProc is a command whose output and exit the test controls.
type fakeProc struct {
	r      *io.PipeReader
	w      *io.PipeWriter
	exited chan struct{}
}

func newFakeProc() *fakeProc {
	r, w := io.Pipe()
	return &fakeProc{r: r, w: w, exited: make(chan struct{})}
}

func (p *fakeProc) Output() io.Reader { return p.r }
func (p *fakeProc) Kill() error       { return nil }
func (p *fakeProc) Wait(ctx context.Context) (int, error) {
	select {
	case <-p.exited:
		return 0, nil
	case <-ctx.Done():
		return -1, ctx.Err()
	}
}

// command is a fake command tracked by a registry.
type command struct {
	p    *fakeProc
	tr   *shell.Tracked
	once sync.Once
}

// track registers a fake command.
func track(t *testing.T, reg *shell.Registry, cmd string) *command {
	t.Helper()
	c := &command{p: newFakeProc()}
	c.tr = reg.Track(cmd, c.p)
	t.Cleanup(c.exit)
	return c
}

// print writes s and waits until the registry took it in.
func (c *command) print(t *testing.T, s string) {
	t.Helper()
	ch := c.tr.Changed()
	if _, err := c.p.w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	<-ch
}

// exit ends the command and waits until the registry saw the exit.
func (c *command) exit() {
	c.once.Do(func() {
		_ = c.p.w.Close()
		close(c.p.exited)
	})
	<-c.tr.Done()
}
