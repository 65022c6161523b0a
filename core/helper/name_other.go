//go:build !windows

package helper

// Name is the helper's file name on this system.
const Name = "cairn-helper"
