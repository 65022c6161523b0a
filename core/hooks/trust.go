package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// MaxFileSize is the largest hook file Cairn trusts and runs: a hook is a script, and its
// trusted content is kept whole for the diff shown when it changes.
const MaxFileSize = 1 << 20

// Status is a hook's trust state.
type Status string

// Trust states.
const (
	// StatusTrusted: the file's content is the one the user trusted.
	StatusTrusted Status = "trusted"
	// StatusChanged: the user trusted other content for this file.
	StatusChanged Status = "changed"
	// StatusNew: the user never trusted this file.
	StatusNew Status = "new"
)

// trusted is what the user agreed to run for one file.
type trusted struct {
	SHA256    string    `json:"sha256"`
	Content   string    `json:"content"`
	TrustedAt time.Time `json:"trustedAt"`
}

// scope is the trust of one workspace root (or the global folder).
type scope struct {
	// Enabled is the user's answer to "run hooks in this workspace?".
	Enabled bool                `json:"enabled"`
	Trusted map[string]*trusted `json:"trusted,omitempty"`
	// Disabled hooks are trusted but switched off by the user.
	Disabled map[string]bool `json:"disabled,omitempty"`
}

// file is the store's JSON document.
type file struct {
	Scopes map[string]*scope `json:"scopes"`
}

// Run is what a hook's last execution did (kept in memory, for the settings view).
type Run struct {
	At       time.Time
	Duration time.Duration
	Event    Kind
	ExitCode int
	Stdout   string
	Stderr   string
	// Error says what went wrong ("" when the hook answered well).
	Error string
}

// Store records which hooks the user enabled and trusted, per workspace root, in one JSON
// file in the daemon's data dir. It is safe for concurrent use.
type Store struct {
	path string // "" keeps everything in memory

	// mu guards doc and runs.
	mu   sync.Mutex
	doc  file
	runs map[string]Run // by hook path
}

// OpenStore reads the store at path ("" for an in-memory store). A missing file is an empty
// store; one that does not parse is an error (nothing is trusted then).
func OpenStore(path string) (*Store, error) {
	s := &Store{path: path, doc: file{Scopes: map[string]*scope{}}, runs: map[string]Run{}}
	if path == "" {
		return s, nil
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("hooks: reading the trust file: %w", err)
	}
	if err := json.Unmarshal(b, &s.doc); err != nil {
		s.doc = file{Scopes: map[string]*scope{}}
		return s, fmt.Errorf("hooks: the trust file does not parse: %w", err)
	}
	if s.doc.Scopes == nil {
		s.doc.Scopes = map[string]*scope{}
	}
	return s, nil
}

// saveLocked writes the document (s.mu held) atomically.
func (s *Store) saveLocked() error {
	if s.path == "" {
		return nil
	}
	b, err := json.MarshalIndent(s.doc, "", "  ")
	if err != nil {
		return fmt.Errorf("hooks: encoding the trust file: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("hooks: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".hooks-*.json")
	if err != nil {
		return fmt.Errorf("hooks: %w", err)
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return errors.Join(fmt.Errorf("hooks: writing the trust file: %w", err), os.Remove(tmp.Name()))
	}
	if err := os.Rename(tmp.Name(), s.path); err != nil {
		return errors.Join(fmt.Errorf("hooks: writing the trust file: %w", err), os.Remove(tmp.Name()))
	}
	return nil
}

func (s *Store) scopeLocked(name string) *scope {
	sc := s.doc.Scopes[name]
	if sc == nil {
		sc = &scope{}
		s.doc.Scopes[name] = sc
	}
	if sc.Trusted == nil {
		sc.Trusted = map[string]*trusted{}
	}
	if sc.Disabled == nil {
		sc.Disabled = map[string]bool{}
	}
	return sc
}

// KeepInMemory stops the store from writing its file: what is enabled and trusted from now on
// lasts as long as the store (`cairn run --hooks` trusts the hooks for that run only).
func (s *Store) KeepInMemory() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.path = ""
}

// Enabled reports whether hooks run in scope.
func (s *Store) Enabled(scopeName string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.doc.Scopes[scopeName]
	return sc != nil && sc.Enabled
}

// SetEnabled records the user's answer to "run hooks in this scope?". Enabling trusts
// nothing: each file is trusted by its content.
func (s *Store) SetEnabled(scopeName string, on bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scopeLocked(scopeName).Enabled = on
	return s.saveLocked()
}

// Trust records the content the hook's file has now as trusted and returns it. want is the
// SHA-256 of the content the user reviewed ("" trusts whatever is there, as `cairn run --hooks`
// does at the start of a run); a file that changed since is not trusted (ErrChanged).
func (s *Store) Trust(h Hook, want string) (string, error) {
	content, err := readHook(h.Path)
	if err != nil {
		return "", err
	}
	if want != "" && want != hash(content) {
		return "", ErrChanged
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scopeLocked(h.Scope).Trusted[h.Path] = &trusted{SHA256: hash(content), Content: string(content), TrustedAt: time.Now().UTC()}
	return string(content), s.saveLocked()
}

// SetHookEnabled switches one hook on or off (a trusted hook that is off does not run).
func (s *Store) SetHookEnabled(h Hook, on bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.scopeLocked(h.Scope)
	if on {
		delete(sc.Disabled, h.Path)
	} else {
		sc.Disabled[h.Path] = true
	}
	return s.saveLocked()
}

// Info is a hook as the settings view shows it.
type Info struct {
	Hook
	Status Status
	// ScopeEnabled: hooks run in the hook's workspace (or globally).
	ScopeEnabled bool
	// Enabled is the hook's own switch.
	Enabled bool
	// Trusted is the content the user trusted ("" for a new hook); Current is the file now.
	Trusted, Current string
	// CurrentSHA256 identifies Current: trusting passes it back, so that only the content the
	// user reviewed is trusted.
	CurrentSHA256 string
	// LastRun is the last execution in this daemon (zero At: never ran).
	LastRun Run
}

// Describe returns what the settings view shows for each hook.
func (s *Store) Describe(hs []Hook) []Info {
	out := make([]Info, 0, len(hs))
	for _, h := range hs {
		content, err := readHook(h.Path)
		s.mu.Lock()
		sc := s.doc.Scopes[h.Scope]
		in := Info{Hook: h, Status: StatusNew, Enabled: true, Current: string(content), LastRun: s.runs[h.Path]}
		if err == nil {
			in.CurrentSHA256 = hash(content)
		}
		if sc != nil {
			in.ScopeEnabled = sc.Enabled
			in.Enabled = !sc.Disabled[h.Path]
			if tr := sc.Trusted[h.Path]; tr != nil {
				in.Trusted = tr.Content
				in.Status = StatusChanged
				if err == nil && tr.SHA256 == hash(content) {
					in.Status = StatusTrusted
				}
			}
		}
		s.mu.Unlock()
		out = append(out, in)
	}
	return out
}

// verdict says whether a hook may run now and why not.
type verdict struct {
	run    bool
	reason string // why it is skipped; "" when it runs or is silently off
	// content is the file as it was read and checked: when run is true, the bytes the user
	// trusted, and the only ones that may be executed (privateCopy).
	content []byte
}

// check reads h's file once and decides, against those bytes, whether h may run.
func (s *Store) check(h Hook) verdict {
	content, err := readHook(h.Path)
	if err != nil {
		return verdict{reason: "it could not be read (" + err.Error() + ")"}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sc := s.doc.Scopes[h.Scope]
	switch {
	case sc == nil || !sc.Enabled:
		return verdict{reason: "hooks are not enabled for " + scopeLabel(h.Scope)}
	case sc.Disabled[h.Path]:
		return verdict{}
	case sc.Trusted[h.Path] == nil:
		return verdict{reason: "it is new and has not been trusted"}
	case sc.Trusted[h.Path].SHA256 != hash(content):
		return verdict{reason: "it changed since it was trusted"}
	case !h.Executable:
		return verdict{reason: "it is not executable (chmod +x)"}
	}
	return verdict{run: true, content: content}
}

func (s *Store) recordRun(path string, r Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs[path] = r
}

func scopeLabel(sc string) string {
	if sc == GlobalScope {
		return "the global hooks folder"
	}
	return "this workspace"
}

// readHook reads a hook file whole, refusing one larger than MaxFileSize.
func readHook(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("hooks: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err := errors.Join(err, f.Close()); err != nil {
		return nil, fmt.Errorf("hooks: %w", err)
	}
	if len(b) > MaxFileSize {
		return nil, ErrTooLarge
	}
	return b, nil
}

func hash(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
