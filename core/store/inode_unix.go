//go:build unix

package store

import (
	"io/fs"
	"syscall"
)

// inodeOf returns the inode number of the file fi describes, or 0 when the stat lacks one.
func inodeOf(fi fs.FileInfo) uint64 {
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(sys.Ino)
	}
	return 0
}
