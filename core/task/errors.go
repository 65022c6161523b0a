package task

import (
	"errors"

	"github.com/cairnhq/cairn/core/task/asks"
	"github.com/cairnhq/cairn/core/task/background"
	"github.com/cairnhq/cairn/core/task/runstate"
)

// Errors returned to callers (the server maps them to codes).
var (
	ErrNoOpenAsk  = asks.ErrNoOpenAsk
	ErrStaleAsk   = asks.ErrStaleAsk
	ErrNotFound   = errors.New("no such task")
	ErrBusy       = runstate.ErrBusy
	ErrBadRequest = errors.New("bad request")
	ErrClosed     = runstate.ErrClosed
	// ErrNotOwnSettings refuses a change of one task's model or policy when the task runs on
	// the shared settings.
	ErrNotOwnSettings = errors.New("the task runs on the shared settings: change them in Settings")
)

// ErrNoCommand is StopCommand's answer for an id the task never gave a command.
var ErrNoCommand = background.ErrNoCommand
