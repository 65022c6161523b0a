// Package store persists tasks so they survive crashes: per task an append-only message log
// and API-history log (one checksummed JSON record per line), and metadata written atomically.
//
// Appending is O(1) I/O per record: a task is never rewritten as a whole. A replaced message
// (a finalised stream, an updated payload) is a new record with the same index; reading folds
// records by index. A torn or corrupt last record — what a kill -9 during a write leaves — is
// dropped on open, never the task.
package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
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

// ErrNotFound is returned for an unknown task id.
var ErrNotFound = errors.New("task not found")

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
	// SizeBytes is filled in by List from the task folder.
	SizeBytes int64 `json:"-"`
}

// Store is the data dir's task folder.
type Store struct {
	dir string
}

// Open returns the store under dataDir/tasks, creating it.
func Open(dataDir string) (*Store, error) {
	dir := filepath.Join(dataDir, "tasks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
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
	l, err := openLog(dir)
	if err != nil {
		return nil, err
	}
	if err := l.SaveMeta(meta); err != nil {
		l.Close()
		return nil, err
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
	out := &Loaded{Meta: meta}
	var byIndex []msg.Message
	n, err := readRecords(filepath.Join(dir, messagesFile), func(raw []byte) error {
		var w wireMessage
		if err := json.Unmarshal(raw, &w); err != nil {
			return err
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
	l, err := openLog(dir)
	if err != nil {
		return nil, err
	}
	out.Log = l
	return out, nil
}

// List returns every task's metadata, newest first.
func (s *Store) List() ([]Meta, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	var out []Meta
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(s.dir, e.Name())
		m, err := readMeta(dir)
		if err != nil {
			continue // a folder without readable metadata is not a task
		}
		m.SizeBytes = dirSize(dir)
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
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

func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
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

// Log appends to one task's files. It is safe for concurrent use.
type Log struct {
	dir string

	// mu guards the files.
	mu       sync.Mutex
	messages *os.File
	api      *os.File
}

func openLog(dir string) (*Log, error) {
	open := func(name string) (*os.File, error) {
		return os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	}
	m, err := open(messagesFile)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	a, err := open(apiFile)
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("store: %w", err)
	}
	return &Log{dir: dir, messages: m, api: a}, nil
}

// AppendMessage records a new message or a new version of one (same Index). sync forces it to
// disk (completed messages); streaming updates pass false.
func (l *Log) AppendMessage(m msg.Message, sync bool) error {
	w, err := fromMsg(m)
	if err != nil {
		return err
	}
	return l.write(l.messages, w, sync)
}

// AppendAPI records one API-history message.
func (l *Log) AppendAPI(m llm.Message) error {
	return l.write(l.api, apiRecord{Message: m}, true)
}

// TruncateAPI records that API history is cut to n messages (restore "task only").
func (l *Log) TruncateAPI(n int) error {
	return l.write(l.api, apiRecord{Truncate: &n}, true)
}

func (l *Log) write(f *os.File, v any, sync bool) error {
	line, err := encodeRecord(v)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("store: append: %w", err)
	}
	if sync {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("store: sync: %w", err)
		}
	}
	return nil
}

// SaveMeta replaces the metadata atomically.
func (l *Log) SaveMeta(m Meta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return writeAtomic(filepath.Join(l.dir, metaFile), b)
}

// Close closes the files.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return errors.Join(l.messages.Close(), l.api.Close())
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return nil
}

// A record is one line: 8 hex digits of CRC-32 (IEEE) of the JSON, a space, the JSON, "\n".
func encodeRecord(v any) ([]byte, error) {
	j, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("store: encode: %w", err)
	}
	line := make([]byte, 0, len(j)+10)
	line = fmt.Appendf(line, "%08x ", crc32.ChecksumIEEE(j))
	line = append(line, j...)
	return append(line, '\n'), nil
}

// readRecords calls fn for every valid record and returns how many were dropped. Reading stops
// at the first bad record: anything after a torn write is not trusted.
func readRecords(path string, fn func([]byte) error) (int, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	dropped := 0
	for {
		line, err := r.ReadBytes('\n')
		if len(line) == 0 && err != nil {
			break
		}
		if !validRecord(line) || fn(line[9:len(line)-1]) != nil {
			dropped++
			// Count the rest as dropped too and stop.
			for {
				rest, err := r.ReadBytes('\n')
				if len(rest) > 0 {
					dropped++
				}
				if err != nil {
					break
				}
			}
			break
		}
		if err != nil {
			break
		}
	}
	return dropped, nil
}

func validRecord(line []byte) bool {
	if len(line) < 11 || line[len(line)-1] != '\n' || line[8] != ' ' {
		return false
	}
	var sum uint32
	if _, err := fmt.Sscanf(string(line[:8]), "%08x", &sum); err != nil {
		return false
	}
	body := bytes.TrimSuffix(line[9:], []byte("\n"))
	return crc32.ChecksumIEEE(body) == sum
}

type apiRecord struct {
	Message  llm.Message `json:"m"`
	Truncate *int        `json:"truncate,omitempty"`
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
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return writeAtomic(filepath.Join(dir, metaFile), b)
}
