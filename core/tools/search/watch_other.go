//go:build !linux

package search

// treeWatch is only implemented with inotify; elsewhere every indexed search walks the
// tree and checks file sizes and times (see index.go).
type treeWatch struct{}

func newTreeWatch() *treeWatch { return nil }

func (*treeWatch) add(string) bool { return false }

func (*treeWatch) changed() bool { return true }

func (*treeWatch) close() error { return nil }
