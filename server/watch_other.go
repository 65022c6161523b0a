//go:build !linux

package server

import "context"

// watchDir is not available here: the caller polls.
func watchDir(context.Context, string, func() bool, func()) bool { return false }
