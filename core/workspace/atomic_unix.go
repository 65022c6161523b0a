//go:build unix

package workspace

import (
	"errors"
	"io/fs"
	"syscall"
)

// accessWrite is access(2)'s W_OK.
const accessWrite = 0x2

// fileOwner returns the owner and group of the file st describes.
func fileOwner(st fs.FileInfo) (uid, gid int, ok bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return -1, -1, false
	}
	return int(sys.Uid), int(sys.Gid), true
}

// accessDenied reports whether the kernel refuses this process write access to path: its
// permissions or a read-only file system. Other errors are left to the write itself.
func accessDenied(path string) bool {
	err := syscall.Access(path, accessWrite)
	return errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EROFS)
}
