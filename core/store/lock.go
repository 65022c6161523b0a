package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// lockFile is the file in a task folder that the daemon holding the task keeps locked (an OS
// lock, which the OS drops when the process dies, so a crashed daemon never leaves a task held).
// It holds the holder's process id and handshake file, for the refusal another daemon gives.
const lockFile = "owner.lock"

// ErrLocked is returned when another daemon (another process, or another Store in this one)
// holds the task. The error is a *LockedError that names the holder.
var ErrLocked = errors.New("task is open in another daemon")

// LockedError says which process holds a task ("One owner per task", README's Security section).
type LockedError struct {
	// ID is the task.
	ID string
	// PID is the holding process (0: it could not be read).
	PID int
	// Handshake is the daemon.json the holder serves ("": a private daemon of `cairn run` or
	// `cairn resume`, which `--connect` does not reach).
	Handshake string
}

func (e *LockedError) Error() string {
	who := "another Cairn process"
	if e.PID > 0 {
		who = fmt.Sprintf("Cairn process %d", e.PID)
	}
	if e.Handshake != "" {
		return fmt.Sprintf("task %s is open in %s, the daemon of %s: follow it there with `cairn resume --connect %s`, "+
			"or close it in that daemon first", e.ID, who, e.Handshake, e.ID)
	}
	return fmt.Sprintf("task %s is open in %s, a private daemon of `cairn run` or `cairn resume` that "+
		"`cairn resume --connect %s` cannot reach: let it finish or stop it, then resume the task", e.ID, who, e.ID)
}

// Unwrap makes errors.Is(err, ErrLocked) hold.
func (e *LockedError) Unwrap() error { return ErrLocked }

// holder is what a lock file says about the process holding it.
type holder struct {
	PID       int    `json:"pid"`
	Handshake string `json:"handshake,omitempty"`
}

// taskLock is a held task lock; release drops it.
type taskLock struct {
	f *os.File
}

// lockTask takes the lock of the task folder dir without waiting; a held lock is a *LockedError.
func lockTask(dir, id string, h holder) (*taskLock, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: lock %s: %w", id, err)
	}
	ok, err := tryLock(f)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("store: lock %s: %w", id, err), f.Close())
	}
	if !ok {
		other := readHolder(f)
		_ = f.Close() // nothing was written through it
		return nil, &LockedError{ID: id, PID: other.PID, Handshake: other.Handshake}
	}
	b, err := json.Marshal(h)
	if err == nil {
		err = f.Truncate(0)
	}
	if err == nil {
		_, err = f.WriteAt(append(b, '\n'), 0)
	}
	if err != nil {
		// Only the refusal's message would lack the holder: the lock itself is held.
		err = errors.Join(err, unlock(f), f.Close())
		return nil, fmt.Errorf("store: lock %s: %w", id, err)
	}
	return &taskLock{f: f}, nil
}

// readHolder reads who holds a lock; a holder that has just taken it may not have written
// itself yet, so an empty file is read again a few times.
func readHolder(f *os.File) holder {
	var h holder
	for range 5 {
		b, err := io.ReadAll(io.NewSectionReader(f, 0, 4096))
		if err == nil && json.Unmarshal(b, &h) == nil && h.PID > 0 {
			return h
		}
		time.Sleep(20 * time.Millisecond)
	}
	return holder{}
}

// release drops the lock. The file stays: removing it would race with a daemon locking it.
func (l *taskLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := errors.Join(unlock(l.f), l.f.Close())
	l.f = nil
	if err != nil {
		return fmt.Errorf("store: unlock: %w", err)
	}
	return nil
}

// lockExisting locks the folder of an existing task; a missing folder is ErrNotFound.
func (s *Store) lockExisting(id string) (*taskLock, string, error) {
	dir, err := s.taskDir(id)
	if err != nil {
		return nil, "", err
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("store: %s: %w", id, ErrNotFound)
	} else if err != nil {
		return nil, "", fmt.Errorf("store: %w", err)
	}
	l, err := lockTask(dir, id, s.holder())
	return l, dir, err
}

// Holder reports whether an open lock holds task id, this Store's own included (a lock is held
// per open file): the *LockedError naming the holder, or nil when nothing holds it or the task
// has no folder. It takes the lock for an instant to find out, so a daemon opening the task at
// that very instant may be refused once, as when two daemons race for it.
func (s *Store) Holder(id string) (*LockedError, error) {
	dir, err := s.taskDir(id)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: lock %s: %w", id, err)
	}
	defer func() { _ = f.Close() }() // nothing is written through it
	ok, err := tryLock(f)
	if err != nil {
		return nil, fmt.Errorf("store: lock %s: %w", id, err)
	}
	if ok {
		return nil, unlock(f)
	}
	h := readHolder(f)
	return &LockedError{ID: id, PID: h.PID, Handshake: h.Handshake}, nil
}
