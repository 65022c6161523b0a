//go:build !linux

package server

import "github.com/cairnhq/cairn/core/watch"

// watchDir is not used here: the caller polls. (Elsewhere the hub's watch of a folder would
// hold the folder's files open, kqueue, or miss a replaced file's events.)
func watchDir(*watch.Hub, string, func()) (func(), bool) { return nil, false }
