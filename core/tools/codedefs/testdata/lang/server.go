// Package server exposes a tiny key-value store over HTTP.
package server

import (
	"encoding/json"
	"net/http"
	"sync"
)

// Store is the contract the handlers need.
type Store interface {
	Get(key string) (string, bool)
	Put(key, value string)
}

// MemoryStore keeps values in a map.
type MemoryStore struct {
	mu   sync.RWMutex
	data map[string]string
}

// Key is a store key.
type Key = string

type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{data: map[string]string{}}
}

func (m *MemoryStore) Get(key string) (string, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	v, ok := m.data[key]
	return v, ok
}

func (m *MemoryStore) Put(key, value string) {
	m.mu.Lock()
	m.data[key] = value
	m.mu.Unlock()
}

// Handler serves GET and PUT on /kv/{key}.
func Handler(s Store) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /kv/{key}", func(w http.ResponseWriter, r *http.Request) {
		v, ok := s.Get(r.PathValue("key"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"value": v})
	})
	return mux
}
