package direct

import "path/filepath"

// Ledger records the process groups of the commands a daemon starts outside the command
// sandbox, in a folder of the data dir, so that the next daemon on that data dir stops what a
// daemon killed outright (SIGKILL, a crash, the OOM killer) left running, before any client
// connects (README, "Commands that keep running"). A sandboxed command needs no record: its
// launcher dies with the daemon and takes its pid namespace with it (docs/sandbox.md).
//
// Each daemon records in a folder of its own, named by its process id and start time, so a
// daemon starting on a data dir another live daemon uses (a `cairn run` beside `cairn serve`)
// leaves that one's commands alone. A nil *Ledger records nothing; the records exist only
// where they can be checked against reuse of a process id (Linux: a process's start time).
type Ledger struct {
	// root holds one folder per daemon; dir is this daemon's.
	root, dir string
}

// NewLedger returns this daemon's ledger under root (its folder is made on the first record).
func NewLedger(root string) *Ledger {
	return &Ledger{root: root, dir: filepath.Join(root, selfName())}
}

// record is one started command's entry: its group and its leader's start time (clock ticks
// since boot, /proc/PID/stat), so a reused id is never taken for it.
type record struct {
	PGID  int    `json:"pgid"`
	Start uint64 `json:"start"`
}
