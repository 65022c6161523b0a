package event

import "errors"

// ErrClosed is returned by Next once the subscription or its broker has closed and every
// queued event was taken.
var ErrClosed = errors.New("event: subscription closed")
