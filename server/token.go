package server

import (
	"encoding/hex"
	"fmt"
)

// newToken returns a fresh random bearer token, 64 hex digits, for one daemon start.
func newToken() (string, error) {
	var b [32]byte
	if err := fillRandom(b[:]); err != nil {
		return "", fmt.Errorf("server: token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}
