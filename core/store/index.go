package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The history index (tasks/history.json) keeps every task's metadata in one file, so listing
// history reads one file and stats each folder instead of parsing every meta.json. It is only
// a cache: each entry carries the identity of the meta.json it was read from, and List checks
// it against the folder, so an index that is missing, corrupt, stale or written by another
// process is repaired, never believed.
const indexFile = "history.json"

const indexVersion = 1

type indexEntry struct {
	Meta  Meta  `json:"meta"`
	Stamp stamp `json:"stamp"`
}

type indexDoc struct {
	Version int          `json:"version"`
	Tasks   []indexEntry `json:"tasks"`
}

// stamp identifies one version of a meta.json. meta.json is replaced by rename, so each
// version is a new inode; modification time and size tell the rare reused inode apart.
type stamp struct {
	ModNanos int64  `json:"mtime"`
	Size     int64  `json:"size"`
	Inode    uint64 `json:"ino,omitempty"`
}

func stampOf(fi fs.FileInfo) stamp {
	st := stamp{ModNanos: fi.ModTime().UnixNano(), Size: fi.Size()}
	st.Inode = inodeOf(fi)
	return st
}

// ListStats says how List used the index.
type ListStats struct {
	// Rebuilt is set when the index was missing or unreadable and was rebuilt from the folders.
	Rebuilt bool
	// Refreshed counts tasks whose meta.json was read because the index lacked or mistook them.
	Refreshed int
	// Removed counts index entries of tasks that no longer exist.
	Removed int
}

// List returns every task's metadata, newest first, with its size on disk.
func (s *Store) List() ([]Meta, error) {
	out, _, err := s.ListWithStats()
	return out, err
}

// ListWithStats is List, also reporting how the history index was used.
func (s *Store) ListWithStats() ([]Meta, ListStats, error) {
	var stats ListStats
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []Meta{}, stats, nil // no task was ever created here
	}
	if err != nil {
		return nil, stats, fmt.Errorf("store: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.index == nil {
		s.index, stats.Rebuilt = s.readIndex()
		s.removeStaleTemps(entries)
	}
	dirty := stats.Rebuilt
	seen := make(map[string]bool, len(entries))
	out := make([]Meta, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		id := e.Name()
		dir := filepath.Join(s.dir, id)
		fi, err := os.Stat(filepath.Join(dir, metaFile))
		if err != nil {
			continue // a folder without metadata is not a task (yet)
		}
		st := stampOf(fi)
		ent, ok := s.index[id]
		if !ok || ent.Stamp != st {
			m, err := readMeta(dir)
			if err != nil {
				continue // unreadable metadata: not listed, the folder is left alone
			}
			ent = indexEntry{Meta: m, Stamp: st}
			s.index[id] = ent
			stats.Refreshed++
			dirty = true
		}
		seen[id] = true
		m := ent.Meta
		m.ID = id
		m.SizeBytes = fi.Size() + fileSize(filepath.Join(dir, messagesFile)) + fileSize(filepath.Join(dir, apiFile))
		out = append(out, m)
	}
	for id := range s.index {
		if !seen[id] {
			delete(s.index, id)
			stats.Removed++
			dirty = true
		}
	}
	if dirty {
		// The index is a cache: failing to save it costs speed, not data.
		_ = s.writeIndex()
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].ID > out[j].ID
	})
	return out, stats, nil
}

// removeStaleTemps deletes, among the tasks folder's entries, the temporary files of index
// writes that a kill cut short (older than staleTemp). The first List of the store does it
// (Open reads nothing). A file it cannot remove stays, clutter and never data: the log says so.
func (s *Store) removeStaleTemps(entries []fs.DirEntry) {
	for _, e := range entries {
		if e.IsDir() || !strings.HasPrefix(e.Name(), tempPrefix) {
			continue
		}
		fi, err := e.Info()
		if err != nil || time.Since(fi.ModTime()) <= staleTemp {
			continue // gone meanwhile, or perhaps a write under way
		}
		if err := os.Remove(filepath.Join(s.dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			slog.Warn("store: a cut-short index write's temporary file stays", "err", err)
		}
	}
}

// readIndex loads the index file; rebuilt reports that it was missing or unreadable.
func (s *Store) readIndex() (idx map[string]indexEntry, rebuilt bool) {
	idx = map[string]indexEntry{}
	b, err := os.ReadFile(filepath.Join(s.dir, indexFile))
	if err != nil {
		return idx, true
	}
	var doc indexDoc
	if err := json.Unmarshal(b, &doc); err != nil || doc.Version != indexVersion {
		return idx, true
	}
	for _, e := range doc.Tasks {
		if e.Meta.ID != "" {
			idx[e.Meta.ID] = e
		}
	}
	return idx, false
}

func (s *Store) writeIndex() error {
	doc := indexDoc{Version: indexVersion, Tasks: make([]indexEntry, 0, len(s.index))}
	for _, e := range s.index {
		doc.Tasks = append(doc.Tasks, e)
	}
	sort.Slice(doc.Tasks, func(i, j int) bool { return doc.Tasks[i].Meta.ID < doc.Tasks[j].Meta.ID })
	b, err := json.Marshal(doc)
	if err != nil {
		return fmt.Errorf("store: index: %w", err)
	}
	return writeAtomic(filepath.Join(s.dir, indexFile), b)
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0 // a log not written yet
	}
	return fi.Size()
}
