package readfile

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

// fakeFiles resolves paths against a temp dir; ignore blocks paths whose root-relative form
// equals or lies under one of its entries.
type fakeFiles struct {
	root   string
	ignore []string
}

func (f *fakeFiles) Root() string { return f.root }

func (f *fakeFiles) Resolve(p string) (string, bool, error) {
	if strings.HasPrefix(p, "bad:") {
		return "", false, errors.New("unknown workspace root bad")
	}
	abs := p
	if !filepath.IsAbs(p) {
		abs = filepath.Join(f.root, p)
	}
	abs = filepath.Clean(abs)
	return abs, abs == f.root || strings.HasPrefix(abs, f.root+string(filepath.Separator)), nil
}

func (f *fakeFiles) Ignored(abs string) bool {
	rel := f.Rel(abs)
	for _, ig := range f.ignore {
		if rel == ig || strings.HasPrefix(rel, ig+"/") {
			return true
		}
	}
	return false
}

func (f *fakeFiles) Rel(abs string) string {
	rel, err := filepath.Rel(f.root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return abs
	}
	return filepath.ToSlash(rel)
}

type said struct {
	kind msg.Kind
	text string
}

// fakeUI answers every approval with answer and records what it was asked and told.
type fakeUI struct {
	answer    tools.Answer
	err       error
	approvals []tools.Approval
	says      []said
}

func (u *fakeUI) Approve(_ context.Context, req tools.Approval) (tools.Answer, error) {
	u.approvals = append(u.approvals, req)
	return u.answer, u.err
}

func (u *fakeUI) Ask(context.Context, msg.Kind, string, msg.Payload) (tools.Answer, error) {
	return u.answer, u.err
}

func (u *fakeUI) Say(_ context.Context, kind msg.Kind, text string, _ msg.Payload, _ bool) {
	u.says = append(u.says, said{kind, text})
}
