package direct

import (
	"cmp"
	"path/filepath"
)

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
	// root holds one folder per daemon (dir: this daemon's).
	root string
	// name names the daemon whose folder dir is; "" is this one (selfName).
	name string
}

// NewLedger returns this daemon's ledger under root (its folder is made on the first record).
// It reads nothing: a daemon's start makes one (docs/performance.md, "P5 — the daemon at rest").
func NewLedger(root string) *Ledger { return &Ledger{root: root} }

// dir is the daemon's folder, named at the first record (this daemon's name reads /proc).
func (l *Ledger) dir() string { return filepath.Join(l.root, cmp.Or(l.name, selfName())) }

// record is one started command's entry: its group and its leader's start time (clock ticks
// since boot, /proc/PID/stat), so a reused id is never taken for it.
type record struct {
	PGID  int    `json:"pgid"`
	Start uint64 `json:"start"`
}
