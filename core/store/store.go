// Package store persists tasks so they survive crashes: per task an append-only message log
// and API-history log (one checksummed JSON record per line), and metadata written atomically.
//
// Appending is O(1) I/O per record: a task is never rewritten as a whole. A replaced message
// (a finalised stream, an updated payload) is a new record with the same index; reading folds
// records by index. A torn or corrupt last record — what a kill -9 during a write leaves — is
// dropped on open (and cut from the file, so later appends are not lost with it), never the
// task. History is listed from an index file that is only a cache: it is checked against the
// task folders on every List and rebuilt when missing or corrupt (index.go).
package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
)

const (
	messagesFile = "messages.log"
	apiFile      = "api.log"
	metaFile     = "meta.json"
)

// Errors.
var (
	// ErrNotFound is returned for an unknown task id.
	ErrNotFound = errors.New("task not found")
	// ErrBadRecord is returned for a record that would break the log (a message index gap).
	ErrBadRecord = errors.New("bad record")
)

// Meta is a task's summary, rewritten atomically on change.
type Meta struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Workspace []string `json:"workspace"`
	Model     string   `json:"model"`
	// Included: the model is one of the editor's own (vscode-lm); its requests have no price.
	Included    bool      `json:"included,omitempty"`
	Mode        string    `json:"mode"`
	Created     time.Time `json:"created"`
	Updated     time.Time `json:"updated"`
	TokensIn    int64     `json:"tokensIn"`
	TokensOut   int64     `json:"tokensOut"`
	CacheReads  int64     `json:"cacheReads"`
	CacheWrites int64     `json:"cacheWrites"`
	Cost        float64   `json:"cost"`
	Favorite    bool      `json:"favorite"`
	FocusChain  string    `json:"focusChain,omitempty"`
	Completed   bool      `json:"completed"`
	// ContextTokens is the size of the last request, for the context bar and truncation.
	ContextTokens int64 `json:"contextTokens"`
	// CondensedAt is the API-history index of the user message that answered an accepted
	// condense, and CondensedSummary its summary: requests send the task, the summary and
	// the messages from that index on (0: never condensed).
	CondensedAt      int    `json:"condensedAt,omitempty"`
	CondensedSummary string `json:"condensedSummary,omitempty"`
	// Overrides are the task's own settings (cairn run --connect's flags), its key excepted:
	// config.Overrides never serialises it.
	Overrides *config.Overrides `json:"overrides,omitempty"`
	// SessionRules are the allow rules the user gave in the task's session ("always"
	// answers), read as the policy's session layer (docs/settings.md, "Policy files").
	SessionRules []config.SessionRule `json:"sessionRules,omitempty"`
	// Parent is the task that started this one as a subtask ("": none); the board and the
	// editor's task strip show it under its parent (README, "The Board").
	Parent string `json:"parent,omitempty"`
	// SizeBytes is filled in by List from the task folder.
	SizeBytes int64 `json:"-"`
}

// Store is the data dir's task folder. It is safe for concurrent use, and several processes
// (the daemon and `cairn history`) may use one folder: the history index is a cache checked
// against the task folders on every List.
type Store struct {
	dir string

	// mu guards index.
	mu sync.Mutex
	// index is the history index (nil until the first List reads it).
	index map[string]indexEntry
	// handshake is the daemon.json this process serves ("": none), written into its task locks.
	handshake string
}

// SetHandshake records the handshake file (daemon.json) through which clients reach this
// process, so that another daemon refused a task this one holds can point at it. Call it
// before the first Create or Load.
func (s *Store) SetHandshake(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handshake = path
}

func (s *Store) holder() holder {
	s.mu.Lock()
	defer s.mu.Unlock()
	return holder{PID: os.Getpid(), Handshake: s.handshake}
}

// Open returns the store under dataDir/tasks, which its first task creates.
func Open(dataDir string) (*Store, error) {
	// Opening reads and writes nothing: the folder holds one entry per task, and a start that
	// listed it would grow with the history (docs/performance.md, "P5 — the daemon at rest").
	// The first task's Create makes it; until then List finds no task. What an index write cut
	// short left behind goes at the first List, which reads the folder anyway.
	return &Store{dir: filepath.Join(dataDir, "tasks")}, nil
}

func (s *Store) taskDir(id string) (string, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return "", fmt.Errorf("store: bad task id %q: %w", id, ErrNotFound)
	}
	return filepath.Join(s.dir, id), nil
}

// Create makes a new task folder and returns its log, which holds the task's lock until it
// is closed (see Load).
func (s *Store) Create(meta Meta) (*Log, error) {
	dir, err := s.taskDir(meta.ID)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	lock, err := lockTask(dir, meta.ID, s.holder())
	if err != nil {
		return nil, err
	}
	l, err := openLog(dir, 0)
	if err != nil {
		return nil, errors.Join(err, lock.release())
	}
	l.lock = lock
	if err := l.SaveMeta(meta); err != nil {
		return nil, errors.Join(err, l.Close())
	}
	return l, nil
}

// Loaded is a task read back from disk.
type Loaded struct {
	Meta     Meta
	Messages []msg.Message
	API      []llm.Message
	// Dropped counts torn or corrupt records that were skipped.
	Dropped int
	Log     *Log
}

// Load locks a task, reads it and opens its log for appending. The log holds the lock until
// it is closed (or the process ends): one daemon at a time runs a task. A task another daemon
// or Store holds is refused with a *LockedError (errors.Is ErrLocked). Reading without
// running (List, Read) needs no lock.
func (s *Store) Load(id string) (_ *Loaded, err error) {
	lock, dir, err := s.lockExisting(id)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, lock.release())
		}
	}()
	out, err := readTask(dir, true)
	if err != nil {
		return nil, err
	}
	l, err := openLog(dir, len(out.Messages))
	if err != nil {
		return nil, err
	}
	l.lock = lock
	out.Log = l
	return out, nil
}

// Read reads a task without taking its lock or opening its log (Log is nil): a view of a
// task that may be open in another daemon. It changes nothing on disk: a torn tail (perhaps
// a record the holder is writing right now) is skipped, not cut.
func (s *Store) Read(id string) (*Loaded, error) {
	dir, err := s.taskDir(id)
	if err != nil {
		return nil, err
	}
	return readTask(dir, false)
}

// readTask reads the task folder dir; owned (the caller holds the lock) also removes temporary
// files and cuts torn tails.
func readTask(dir string, owned bool) (*Loaded, error) {
	meta, err := readMeta(dir)
	if err != nil {
		return nil, err
	}
	if owned {
		removeTemps(dir)
	}
	out := &Loaded{Meta: meta}
	var byIndex []msg.Message
	n, err := readRecords(filepath.Join(dir, messagesFile), owned, func(raw []byte) error {
		var w wireMessage
		if err := json.Unmarshal(raw, &w); err != nil {
			return err
		}
		if w.Cut != nil {
			if *w.Cut > len(byIndex) || *w.Cut < 0 {
				return fmt.Errorf("cut to %d of %d messages", *w.Cut, len(byIndex))
			}
			byIndex = byIndex[:*w.Cut]
			return nil
		}
		m, err := w.toMsg()
		if err != nil {
			return err
		}
		switch {
		case m.Index < len(byIndex):
			byIndex[m.Index] = m
		case m.Index == len(byIndex):
			byIndex = append(byIndex, m)
		default:
			return fmt.Errorf("message index %d after %d", m.Index, len(byIndex))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.Dropped += n
	out.Messages = byIndex
	n, err = readRecords(filepath.Join(dir, apiFile), owned, func(raw []byte) error {
		var r apiRecord
		if err := json.Unmarshal(raw, &r); err != nil {
			return err
		}
		if r.Truncate != nil {
			if *r.Truncate <= len(out.API) {
				out.API = out.API[:*r.Truncate]
			}
			return nil
		}
		out.API = append(out.API, r.Message)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.Dropped += n
	return out, nil
}

// Delete removes tasks. It takes every task's lock first, so a task open in another daemon
// (or in this one: close it first) is refused with a *LockedError and nothing is deleted.
func (s *Store) Delete(ids ...string) (err error) {
	locks := make(map[string]*taskLock, len(ids))
	defer func() {
		for _, l := range locks {
			err = errors.Join(err, l.release())
		}
	}()
	for _, id := range ids {
		if _, ok := locks[id]; ok {
			continue
		}
		l, _, err := s.lockExisting(id)
		if errors.Is(err, ErrNotFound) {
			if _, bad := s.taskDir(id); bad != nil {
				return bad
			}
			continue // already gone
		}
		if err != nil {
			return err
		}
		locks[id] = l
	}
	for id, l := range locks {
		dir, err := s.taskDir(id)
		if err != nil {
			return err
		}
		// Everything but the held lock file first (Windows removes no open file), then the rest.
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("store: delete %s: %w", id, err)
		}
		for _, e := range entries {
			if e.Name() == lockFile {
				continue
			}
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("store: delete %s: %w", id, err)
			}
		}
		delete(locks, id)
		if err := l.release(); err != nil {
			return err
		}
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("store: delete %s: %w", id, err)
		}
	}
	return nil
}

// staleTemp is how old a temporary file in the tasks folder must be before List removes it:
// a younger one may be another process's index write under way (`cairn history` shares the
// folder), whose rename would then fail.
const staleTemp = time.Minute

// tempPrefix starts the name of writeAtomic's temporary files.
const tempPrefix = ".tmp-"

// removeTemps deletes what a metadata write cut short by a kill left behind.
func removeTemps(dir string) {
	temps, _ := filepath.Glob(filepath.Join(dir, tempPrefix+"*"))
	for _, p := range temps {
		_ = os.Remove(p)
	}
}

func readMeta(dir string) (Meta, error) {
	b, err := os.ReadFile(filepath.Join(dir, metaFile))
	if errors.Is(err, fs.ErrNotExist) {
		return Meta{}, fmt.Errorf("store: %s: %w", filepath.Base(dir), ErrNotFound)
	}
	if err != nil {
		return Meta{}, fmt.Errorf("store: %w", err)
	}
	var m Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return Meta{}, fmt.Errorf("store: %s: corrupt metadata: %w", filepath.Base(dir), err)
	}
	return m, nil
}

// UpdateMeta changes a task's metadata on disk (for a task that is not loaded).
func (s *Store) UpdateMeta(id string, fn func(*Meta)) error {
	dir, err := s.taskDir(id)
	if err != nil {
		return err
	}
	m, err := readMeta(dir)
	if err != nil {
		return err
	}
	fn(&m)
	return writeMeta(dir, m)
}
