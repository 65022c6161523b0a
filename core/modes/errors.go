package modes

import "errors"

// ErrInvalid is a mode file that says something Cairn cannot honour.
var ErrInvalid = errors.New("modes: invalid mode")
