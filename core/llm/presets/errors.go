package presets

import "errors"

var (
	// ErrStatus is a catalogue endpoint answering with an HTTP error.
	ErrStatus = errors.New("presets: model list request failed")
	// ErrNoBaseURL is a preset without an endpoint of its own, listed without one given.
	ErrNoBaseURL = errors.New("presets: no endpoint URL")
)
