package hostbridge

import (
	"context"

	"github.com/cairnhq/cairn/core/tools"
)

// Ref is a task's handle on the host with a stable id. It holds no connection: every call
// looks up the connection that serves the host now, so a task keeps working through a
// reconnected bridge, and uses the fallback host for what that connection does not offer or
// while no connection is there (edits asked in the chat and written to disk, commands in the
// daemon's own terminal).
type Ref struct {
	r        *Registry
	id       string
	fallback tools.Host
}

// Ref returns a handle on the host named id, falling back to fallback.
func (r *Registry) Ref(id string, fallback tools.Host) *Ref {
	return &Ref{r: r, id: id, fallback: fallback}
}

// current returns the connection serving the host when it offers the capability.
func (f *Ref) current(offers func(*Host) bool) (*Host, bool) {
	h, ok := f.r.Get(f.id)
	if !ok || !offers(h) {
		return nil, false
	}
	return h, true
}

func offersDiffs(h *Host) bool    { return h.hello.GetDiffView() }
func offersTerminal(h *Host) bool { return h.hello.GetTerminal() }
func offersEditor(h *Host) bool   { return h.hello.GetEditor() }

// Diffs returns a presenter that opens each diff on the host connected at that moment.
func (f *Ref) Diffs() tools.DiffPresenter { return refDiffs{f} }

// Terminal returns a terminal that runs each command on the host connected at that moment.
func (f *Ref) Terminal() tools.Terminal { return refTerminal{f} }

// Editor returns an editor that asks the host connected at the moment of each call.
func (f *Ref) Editor() tools.Editor { return refEditor{f} }

type refDiffs struct{ f *Ref }

func (d refDiffs) Open(ctx context.Context, abs, original string, isNew bool) (tools.DiffSession, error) {
	if h, ok := d.f.current(offersDiffs); ok {
		return h.openDiff(ctx, d.f, abs, original, isNew)
	}
	return d.f.fallback.Diffs().Open(ctx, abs, original, isNew)
}

type refTerminal struct{ f *Ref }

func (t refTerminal) Run(ctx context.Context, req tools.CommandRequest) (tools.Process, error) {
	if h, ok := t.f.current(offersTerminal); ok {
		return h.Terminal().Run(ctx, req)
	}
	return t.f.fallback.Terminal().Run(ctx, req)
}

type refEditor struct{ f *Ref }

func (e refEditor) editor() tools.Editor {
	if h, ok := e.f.current(offersEditor); ok {
		return h.Editor()
	}
	return e.f.fallback.Editor()
}

func (e refEditor) VisibleFiles(ctx context.Context) ([]string, error) {
	return e.editor().VisibleFiles(ctx)
}

func (e refEditor) OpenTabs(ctx context.Context) ([]string, error) { return e.editor().OpenTabs(ctx) }

func (e refEditor) Diagnostics(ctx context.Context, paths []string) ([]tools.Diagnostic, error) {
	return e.editor().Diagnostics(ctx, paths)
}

func (e refEditor) OpenFile(ctx context.Context, abs string, line int) error {
	return e.editor().OpenFile(ctx, abs, line)
}

func (e refEditor) ShowMessage(ctx context.Context, level, text string) error {
	return e.editor().ShowMessage(ctx, level, text)
}

func (e refEditor) WorkspaceFolders(ctx context.Context) ([]string, error) {
	return e.editor().WorkspaceFolders(ctx)
}

func offersFiles(h *Host) bool { return h.hello.GetReadFile() }

// ReadText implements tools.Buffers: through the host when it serves files, otherwise not
// served (the tool reads the disk).
func (f *Ref) ReadText(ctx context.Context, abs string) (string, bool, error) {
	if h, ok := f.current(offersFiles); ok {
		return h.ReadText(ctx, abs)
	}
	return "", false, nil
}
