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
	ID          string    `json:"id"`
	Title       string    `json:"title"`
	Workspace   []string  `json:"workspace"`
	Model       string    `json:"model"`
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
}

// Open returns the store under dataDir/tasks, creating it.
func Open(dataDir string) (*Store, error) {
	dir := filepath.Join(dataDir, "tasks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	removeTemps(dir) // an index write cut short
	return &Store{dir: dir}, nil
}

func (s *Store) taskDir(id string) (string, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return "", fmt.Errorf("store: bad task id %q: %w", id, ErrNotFound)
	}
	return filepath.Join(s.dir, id), nil
}

// Create makes a new task folder and returns its log.
func (s *Store) Create(meta Meta) (*Log, error) {
	dir, err := s.taskDir(meta.ID)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	l, err := openLog(dir, 0)
	if err != nil {
		return nil, err
	}
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

// Load reads a task and opens its log for appending.
func (s *Store) Load(id string) (*Loaded, error) {
	dir, err := s.taskDir(id)
	if err != nil {
		return nil, err
	}
	meta, err := readMeta(dir)
	if err != nil {
		return nil, err
	}
	removeTemps(dir)
	out := &Loaded{Meta: meta}
	var byIndex []msg.Message
	n, err := readRecords(filepath.Join(dir, messagesFile), func(raw []byte) error {
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
	n, err = readRecords(filepath.Join(dir, apiFile), func(raw []byte) error {
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
	l, err := openLog(dir, len(out.Messages))
	if err != nil {
		return nil, err
	}
	out.Log = l
	return out, nil
}

// Delete removes tasks.
func (s *Store) Delete(ids ...string) error {
	for _, id := range ids {
		dir, err := s.taskDir(id)
		if err != nil {
			return err
		}
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("store: delete %s: %w", id, err)
		}
	}
	return nil
}

// removeTemps deletes what a metadata write cut short by a kill left behind.
func removeTemps(dir string) {
	temps, _ := filepath.Glob(filepath.Join(dir, ".tmp-*"))
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
