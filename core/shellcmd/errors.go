package shellcmd

import "errors"

// ErrTooDeep is returned when scripts nest (`bash -c "bash -c …"`) beyond maxDepth.
var ErrTooDeep = errors.New("shellcmd: scripts nested too deeply")

// ErrEmpty is returned for a command line with no command in it.
var ErrEmpty = errors.New("shellcmd: empty command")
