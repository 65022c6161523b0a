package server

import "errors"

var (
	// ErrDaemonRunning means another live daemon already serves this socket or port: the
	// caller should connect to it (its handshake file says where) instead of starting one.
	ErrDaemonRunning = errors.New("another daemon is listening")
	// ErrTokenFile means an existing token file was not ours to replace (another owner, or
	// not a regular file): it is refused, never adopted.
	ErrTokenFile = errors.New("token file refused")
	// ErrNoPipes means a named pipe address was given on a platform without named pipes.
	ErrNoPipes = errors.New("named pipes exist only on Windows")
	// ErrNoDaemon means no live daemon was found through the handshake file.
	ErrNoDaemon = errors.New("no running daemon")
)
