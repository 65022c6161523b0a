// Package toolstest holds hand-written fakes of the interfaces tool families consume
// (tools.Files and tools.UI), shared by the families' tests.
package toolstest

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

// Files resolves paths against Dir; Ignore blocks paths whose root-relative form equals or
// lies under one of its entries. A path starting with "bad:" fails to resolve.
type Files struct {
	Dir    string
	Ignore []string
}

var _ tools.Files = (*Files)(nil)

// Root is the workspace root.
func (f *Files) Root() string { return f.Dir }

// Resolve joins relative paths to the root and reports whether the result lies inside it.
func (f *Files) Resolve(p string) (string, bool, error) {
	if strings.HasPrefix(p, "bad:") {
		return "", false, errors.New("unknown workspace root bad")
	}
	abs := p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(f.Dir, p)
	}
	abs = filepath.Clean(abs)
	return abs, abs == f.Dir || strings.HasPrefix(abs, f.Dir+string(filepath.Separator)), nil
}

// Ignored applies Ignore.
func (f *Files) Ignored(abs string) bool {
	rel := f.Rel(abs)
	for _, ig := range f.Ignore {
		if rel == ig || strings.HasPrefix(rel, ig+"/") {
			return true
		}
	}
	return false
}

// Rel is root-relative (slash-separated) inside the root, absolute outside.
func (f *Files) Rel(abs string) string {
	rel, err := filepath.Rel(f.Dir, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(abs) // as the workspace shows a path outside its roots
	}
	return filepath.ToSlash(rel)
}

// Said is one recorded Say.
type Said struct {
	Kind msg.Kind
	Text string
}

// UI answers every approval and ask with Answer (or Err) and records what it was asked and told.
type UI struct {
	Answer    tools.Answer
	Err       error
	Approvals []tools.Approval
	Says      []Said
}

var _ tools.UI = (*UI)(nil)

// Approve records req and answers.
func (u *UI) Approve(_ context.Context, req tools.Approval) (tools.Answer, error) {
	u.Approvals = append(u.Approvals, req)
	return u.Answer, u.Err
}

// Ask answers.
func (u *UI) Ask(context.Context, msg.Kind, string, msg.Payload) (tools.Answer, error) {
	return u.Answer, u.Err
}

// Say records kind and text.
func (u *UI) Say(_ context.Context, kind msg.Kind, text string, _ msg.Payload, _ bool) {
	u.Says = append(u.Says, Said{kind, text})
}
