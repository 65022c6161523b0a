package vscodelm

import (
	"errors"
	"fmt"

	"github.com/cairnhq/cairn/core/llm"
)

// ErrNeedsEditor is the one message `cairn run`, `cairn acp` and a task started without an
// editor give for this provider: the models live inside VS Code, and only a task started from
// it can reach them.
var ErrNeedsEditor = errors.New(`the "vscode-lm" provider (VS Code's own language models) works only for tasks ` +
	`started in VS Code's Cairn view, since the models are reached through the editor; on the command line ` +
	`(cairn run, cairn acp, with or without --connect) choose another provider or give --base-url`)

// ErrEditorAway is returned while the editor that started the task is not connected (its
// window closed or its bridge is reconnecting).
var ErrEditorAway = errors.New("the editor whose language models this task uses is not connected; " +
	"reopen its window (or reload it) and resume the task")

// Code is why the editor could not answer a request.
type Code string

// Codes: the first three are VS Code's LanguageModelError codes.
const (
	// CodeNoPermissions: the user did not allow Cairn to use the model (the consent dialog was
	// refused or dismissed).
	CodeNoPermissions Code = "no_permissions"
	// CodeBlocked: the model refused the request (a quota, rate or content rule of its vendor).
	CodeBlocked Code = "blocked"
	// CodeNotFound: the model's vendor does not know it.
	CodeNotFound Code = "not_found"
	// CodeGone: the editor no longer offers the model (its extension was disabled, or the
	// subscription ended).
	CodeGone Code = "gone"
	// CodeCancelled: the request was cancelled in the editor.
	CodeCancelled Code = "cancelled"
	// CodeOther: any other failure; the message says what.
	CodeOther Code = "other"
)

// Error is a request the editor's model did not answer. It matches core/llm's sentinels
// (errors.Is): permissions and blocks are llm.ErrForbidden, a missing model llm.ErrNotFound;
// none of them is retried.
type Error struct {
	Code   Code
	Model  string
	Detail string // the editor's own message
}

func (e *Error) Error() string {
	var s string
	switch e.Code {
	case CodeNoPermissions:
		s = fmt.Sprintf("VS Code did not allow Cairn to use the language model %q: answer the editor's permission prompt with Allow, or choose another model in Cairn's settings", e.Model)
	case CodeBlocked:
		s = fmt.Sprintf("the language model %q refused the request (its vendor's quota or rules); wait and resume, or choose another model", e.Model)
	case CodeNotFound:
		s = fmt.Sprintf("VS Code has no language model %q: choose one of the editor's models in Cairn's settings", e.Model)
	case CodeGone:
		s = fmt.Sprintf("the language model %q is no longer offered by VS Code (was the extension providing it disabled or signed out?); choose another model in Cairn's settings", e.Model)
	case CodeCancelled:
		s = fmt.Sprintf("the request to the language model %q was cancelled in the editor", e.Model)
	default:
		s = fmt.Sprintf("the editor's language model %q failed", e.Model)
	}
	if e.Detail != "" {
		s += " (" + e.Detail + ")"
	}
	return s
}

// Is matches core/llm's sentinels so callers need not know the codes.
func (e *Error) Is(target error) bool {
	switch e.Code {
	case CodeNoPermissions, CodeBlocked:
		return target == llm.ErrForbidden
	case CodeNotFound, CodeGone:
		return target == llm.ErrNotFound
	}
	return false
}

// Permanent reports whether sending the request again cannot help (llm.IsPermanent): the
// user must allow the model or choose another. A block may be a quota that passes.
func (e *Error) Permanent() bool {
	switch e.Code {
	case CodeNoPermissions, CodeNotFound, CodeGone:
		return true
	}
	return false
}
