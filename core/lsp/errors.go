package lsp

import "errors"

// ErrUnavailable is why a file's diagnostics (or a navigation answer) cannot be given: no
// server for its language, one that failed to start, crashed, hangs or answered too late.
var ErrUnavailable = errors.New("diagnostics unavailable")
