//go:build windows

package workspace

import "io/fs"

// fileOwner has nothing to report on Windows: files carry an owner SID, not a uid, and
// os.Geteuid is -1 there, so WriteFileAtomic never tries to carry an owner over.
func fileOwner(fs.FileInfo) (uid, gid int, ok bool) { return -1, -1, false }

// accessDenied leaves the decision to the write on Windows: the read-only attribute already
// shows as a mode without write bits, and an ACL that denies writing fails the rename with a
// wrapped error.
func accessDenied(string) bool { return false }
