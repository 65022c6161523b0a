package browser

import "errors"

// Errors of a browser session. Run turns the ones the model can act on into model-facing
// results; the rest are wrapped Go errors.
var (
	// ErrNotOpen: an action other than launch while no session is open.
	ErrNotOpen = errors.New("browser: no browser session is open")
	// ErrNoBrowser: no Chromium, Chrome or Edge was found and none is configured.
	ErrNoBrowser = errors.New("browser: no Chromium, Chrome or Edge found (set the browser path in settings)")
	// ErrNavigate: the page could not be loaded (DNS, refused connection, …).
	ErrNavigate = errors.New("browser: the page could not be loaded")
)
