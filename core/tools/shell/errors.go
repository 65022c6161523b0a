package shell

import "errors"

// ErrNoTerminal is returned when the host offers no terminal to run commands in.
var ErrNoTerminal = errors.New("shell: host has no terminal")
