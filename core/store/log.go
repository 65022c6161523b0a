package store

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
)

// Log appends to one task's files. It is safe for concurrent use.
type Log struct {
	dir string

	// mu guards the files and next.
	mu       sync.Mutex
	messages *os.File
	api      *os.File
	// next is the number of messages: a record may replace one or add the next, never skip.
	next int
	// written counts the bytes appended, for the O(1)-per-message report.
	written int64
	// lock is the task's lock, held while the log is open (nil for a log opened without one).
	lock *taskLock
}

func openLog(dir string, next int) (*Log, error) {
	open := func(name string) (*os.File, error) {
		return os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	}
	m, err := open(messagesFile)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	a, err := open(apiFile)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("store: %w", err), m.Close())
	}
	return &Log{dir: dir, messages: m, api: a, next: next}, nil
}

// AppendMessage records a new message (Index = the message count) or a new version of one
// (same Index). sync forces it to disk (completed messages); streaming updates pass false.
// An index beyond the end is refused with ErrBadRecord: it would hide every later record.
func (l *Log) AppendMessage(m msg.Message, sync bool) error {
	w, err := fromMsg(m)
	if err != nil {
		return err
	}
	line, err := encodeRecord(w)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if m.Index < 0 || m.Index > l.next {
		return fmt.Errorf("store: message %d after %d messages: %w", m.Index, l.next, ErrBadRecord)
	}
	if err := l.writeLocked(l.messages, line, sync); err != nil {
		return err
	}
	if m.Index == l.next {
		l.next++
	}
	return nil
}

// TruncateMessages records that the message list is cut to its first n messages (a stale
// resume question dropped on reopening).
func (l *Log) TruncateMessages(n int) error {
	line, err := encodeRecord(wireMessage{Cut: &n})
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if n < 0 || n > l.next {
		return fmt.Errorf("store: cut to %d of %d messages: %w", n, l.next, ErrBadRecord)
	}
	if err := l.writeLocked(l.messages, line, true); err != nil {
		return err
	}
	l.next = n
	return nil
}

// AppendAPI records one API-history message.
func (l *Log) AppendAPI(m llm.Message) error {
	return l.write(l.api, apiRecord{Message: m})
}

// TruncateAPI records that API history is cut to n messages (restore "task only").
func (l *Log) TruncateAPI(n int) error {
	return l.write(l.api, apiRecord{Truncate: &n})
}

func (l *Log) write(f *os.File, v any) error {
	line, err := encodeRecord(v)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.writeLocked(f, line, true)
}

func (l *Log) writeLocked(f *os.File, line []byte, sync bool) error {
	if f == nil {
		return fmt.Errorf("store: append: %w", os.ErrClosed)
	}
	// One write call per record: a kill leaves at most this record torn, never an earlier one.
	if _, err := f.Write(line); err != nil {
		return fmt.Errorf("store: append: %w", err)
	}
	l.written += int64(len(line))
	if sync {
		if err := f.Sync(); err != nil {
			return fmt.Errorf("store: sync: %w", err)
		}
	}
	return nil
}

// Dir returns the task's folder. Files the task keeps besides its records (the whole output
// of long commands) go in folders under it, so deleting the task deletes them too.
func (l *Log) Dir() string { return l.dir }

// Written returns how many bytes this log appended since it was opened.
func (l *Log) Written() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.written
}

// SaveMeta replaces the metadata atomically.
func (l *Log) SaveMeta(m Meta) error {
	return writeMeta(l.dir, m)
}

// Close closes the files and releases the task's lock. Appending afterwards fails.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.messages == nil {
		return nil
	}
	err := errors.Join(l.messages.Close(), l.api.Close(), l.lock.release())
	l.messages, l.api, l.lock = nil, nil, nil
	return err
}

func writeMeta(dir string, m Meta) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return writeAtomic(filepath.Join(dir, metaFile), b)
}

// writeAtomic replaces path with data: a reader (or a restart after kill -9) sees the old
// content or the new, never a mix. The folder is synced so the rename survives a power cut.
func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPrefix+"*")
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	err = writeSynced(tmp, data)
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		// Best effort: a temp file left behind is clutter, never data, and the error that
		// matters is the one returned.
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("store: %w", err)
	}
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		_ = d.Sync()  // best effort: not every file system syncs folders
		_ = d.Close() // opened only to sync it: nothing was written through it
	}
	return nil
}

// writeSynced writes data to f, flushes it to disk and closes f, whatever fails first.
func writeSynced(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
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
// at the first bad record: anything after a torn write is not trusted. When records were
// dropped the file is cut back to the last good one, so that later appends are not glued to
// the torn tail (and dropped with it on the next open); only cut (the task's lock is held)
// allows that.
func readRecords(path string, cut bool, fn func([]byte) error) (int, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: %w", err)
	}
	r := bufio.NewReaderSize(f, 1<<16)
	dropped := 0
	var good int64 // bytes of valid records
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A record longer than the buffer: gather it whole.
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
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
		good += int64(len(line))
		if err != nil {
			break
		}
	}
	_ = f.Close() // opened read-only: a failed close loses nothing
	if dropped > 0 && cut {
		if err := os.Truncate(path, good); err != nil {
			return dropped, fmt.Errorf("store: cut torn tail: %w", err)
		}
	}
	return dropped, nil
}

func validRecord(line []byte) bool {
	if len(line) < 11 || line[len(line)-1] != '\n' || line[8] != ' ' {
		return false
	}
	sum, err := strconv.ParseUint(string(line[:8]), 16, 32)
	if err != nil {
		return false
	}
	return crc32.ChecksumIEEE(line[9:len(line)-1]) == uint32(sum)
}

type apiRecord struct {
	Message  llm.Message `json:"m"`
	Truncate *int        `json:"truncate,omitempty"`
}
