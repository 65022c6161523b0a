package mcp

import "errors"

// Errors the hub returns. Callers match them with errors.Is.
var (
	// ErrUnknownServer: no server of that name is configured.
	ErrUnknownServer = errors.New("mcp: no such server")
	// ErrNotConnected: the server is configured but not connected (connecting, failed, disabled).
	ErrNotConnected = errors.New("mcp: server is not connected")
	// ErrUnknownTool: the connected server offers no tool of that name.
	ErrUnknownTool = errors.New("mcp: server has no such tool")
	// ErrBadArguments: the arguments do not match the tool's input schema.
	ErrBadArguments = errors.New("mcp: arguments do not match the tool's input schema")
	// ErrBadSettings: the settings file is not valid JSON or an entry is invalid; the file
	// is left as it is.
	ErrBadSettings = errors.New("mcp: invalid MCP settings")
	// ErrBadName: a server name is empty or already taken.
	ErrBadName = errors.New("mcp: invalid server name")
	// ErrClosed: the hub was closed.
	ErrClosed = errors.New("mcp: hub is closed")
	// errUnknownDraft: an input schema of a draft the validator does not implement; it
	// checks nothing.
	errUnknownDraft = errors.New("mcp: input schema of an unknown draft")
)
