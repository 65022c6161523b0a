package webfetch

import (
	"errors"
	"fmt"
)

// Errors of a fetch. All of them are the page's or the URL's fault, so tools report them to
// the model; only a cancelled context is the caller's.
var (
	ErrScheme  = errors.New("webfetch: only http and https URLs can be fetched")
	ErrStatus  = errors.New("webfetch: the server answered with an error status")
	ErrNotText = errors.New("webfetch: the content is not text")
)

// StatusError is a response whose status is not 2xx.
type StatusError struct{ Status string }

func (e *StatusError) Error() string { return fmt.Sprintf("%v: %s", ErrStatus, e.Status) }

// Unwrap makes errors.Is(err, ErrStatus) hold.
func (e *StatusError) Unwrap() error { return ErrStatus }

// TypeError is content of a media type that is not shown.
type TypeError struct{ MediaType string }

func (e *TypeError) Error() string { return fmt.Sprintf("%v: %s", ErrNotText, e.MediaType) }

// Unwrap makes errors.Is(err, ErrNotText) hold.
func (e *TypeError) Unwrap() error { return ErrNotText }
