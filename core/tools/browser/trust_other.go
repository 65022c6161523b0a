//go:build !unix || darwin

package browser

import (
	"context"
	"fmt"
)

// trustHome has no database to write here: Chrome and Edge on macOS and Windows trust the
// system's certificate store and nothing a process hands them, so an authority the browser
// must trust is added to that store (README "Networks of organisations").
func trustHome(context.Context, [][]byte) (string, error) {
	return "", fmt.Errorf("%w: on this system the browser trusts only the system's certificate store; add the authority there", errUntrusted)
}
