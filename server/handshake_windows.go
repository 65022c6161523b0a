//go:build windows

package server

import "os"

// reuseSpareHandshake never reuses a file on Windows: there the handshake file is always
// created afresh, and a stopping daemon removes it.
func reuseSpareHandshake(string, []byte) (os.FileInfo, bool, error) { return nil, false, nil }

// retireHandshakeFile removes a stopping daemon's handshake file.
func retireHandshakeFile(path string) error { return os.Remove(path) }
