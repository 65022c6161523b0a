package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/workspace"
)

// Transport types of a server entry (Cline's names).
const (
	TypeStdio          = "stdio"
	TypeSSE            = "sse"
	TypeStreamableHTTP = "streamableHttp"
)

// DefaultTimeout is a server's timeout in seconds when its entry sets none.
const DefaultTimeout = 60

// ServerConfig is one entry of mcp_settings.json, in Cline's schema.
type ServerConfig struct {
	Command     string            `json:"command,omitempty"`
	Args        []string          `json:"args,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Cwd         string            `json:"cwd,omitempty"`
	Type        string            `json:"type,omitempty"`
	URL         string            `json:"url,omitempty"`
	Headers     map[string]string `json:"headers,omitempty"`
	Disabled    bool              `json:"disabled,omitempty"`
	AutoApprove []string          `json:"autoApprove,omitempty"`
	// Timeout is in seconds (min 1, default 60); it bounds the handshake and every request.
	Timeout int `json:"timeout,omitempty"`
	// WritablePaths are the folders a stdio server may write in the command sandbox, besides
	// its private temp folder and the build caches (docs/settings.md, "MCP servers"):
	// absolute, or ~/ for the home folder; ${env:NAME} expands. Cairn's own key, not Cline's.
	WritablePaths []string `json:"writablePaths,omitempty"`
}

// transport returns the entry's transport: the type when set, else stdio for a command and
// Streamable HTTP for a URL (what Cline infers for entries written before "type" existed).
func (c ServerConfig) transport() string {
	if c.Type != "" {
		return c.Type
	}
	if c.Command == "" && c.URL != "" {
		return TypeStreamableHTTP
	}
	return TypeStdio
}

// timeoutSeconds is the effective timeout.
func (c ServerConfig) timeoutSeconds() int {
	if c.Timeout < 1 {
		return DefaultTimeout
	}
	return c.Timeout
}

// validate reports what makes an entry unusable.
func (c ServerConfig) validate() error {
	switch c.transport() {
	case TypeStdio:
		if c.Command == "" {
			return errors.New(`a stdio server needs "command"`)
		}
	case TypeSSE, TypeStreamableHTTP:
		if c.URL == "" {
			return fmt.Errorf("a %s server needs \"url\"", c.transport())
		}
		if !strings.HasPrefix(c.URL, "http://") && !strings.HasPrefix(c.URL, "https://") {
			return fmt.Errorf("url %q is not an http(s) address", c.URL)
		}
	default:
		return fmt.Errorf("unknown type %q (stdio, sse or streamableHttp)", c.Type)
	}
	if c.Timeout < 0 {
		return errors.New("timeout must be at least 1 second")
	}
	for _, p := range c.WritablePaths {
		if e := expandEnv(p); !filepath.IsAbs(e) && !strings.HasPrefix(e, "~/") {
			return fmt.Errorf("writablePaths: %q is not an absolute path (or one that starts with ~/)", p)
		}
	}
	return nil
}

// writable returns the entry's writablePaths expanded, with home for ~/ ("" leaves such a
// path out: there is no home folder to find it in).
func (c ServerConfig) writable(home string) []string {
	var out []string
	for _, p := range c.WritablePaths {
		p = expandEnv(p)
		if rest, ok := strings.CutPrefix(p, "~/"); ok {
			if home == "" {
				continue
			}
			p = filepath.Join(home, rest)
		}
		if filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

// sameConnection reports whether two entries connect the same way: a change of only the
// autoApprove list or the timeout does not restart a server.
func sameConnection(a, b ServerConfig) bool {
	a.AutoApprove, b.AutoApprove = nil, nil
	a.Timeout, b.Timeout = 0, 0
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(ja, jb)
}

// entry is one parsed server entry: its config, or why it cannot be used.
type entry struct {
	Name   string
	Config ServerConfig
	Err    error
}

// parseSettings reads the Cline schema. A document that is not JSON (or whose mcpServers is
// not an object) is an error for the whole file; an entry that does not decode or validate
// is returned with its Err and the other entries are unaffected. Entries come sorted by name.
func parseSettings(data []byte) ([]entry, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var doc struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadSettings, err)
	}
	names := make([]string, 0, len(doc.Servers))
	for n := range doc.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]entry, 0, len(names))
	for _, n := range names {
		e := entry{Name: n}
		dec := json.NewDecoder(bytes.NewReader(doc.Servers[n]))
		if err := dec.Decode(&e.Config); err != nil {
			e.Err = fmt.Errorf("%w: server %q: %w", ErrBadSettings, n, err)
		} else if err := e.Config.validate(); err != nil {
			e.Err = fmt.Errorf("%w: server %q: %w", ErrBadSettings, n, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// joinEntries is base with extra's entries on top (by name), sorted by name.
func joinEntries(base, extra []entry) []entry {
	byName := map[string]entry{}
	for _, e := range base {
		byName[e.Name] = e
	}
	for _, e := range extra {
		byName[e.Name] = e
	}
	out := make([]entry, 0, len(byName))
	for _, e := range byName {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// envRef matches ${env:NAME} in env values and headers.
var envRef = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}`) }}

// expandEnv replaces ${env:NAME} with the daemon's environment variable (empty when unset).
func expandEnv(s string) string {
	return envRef.Get().ReplaceAllStringFunc(s, func(m string) string {
		return os.Getenv(envRef.Get().FindStringSubmatch(m)[1])
	})
}

func expandMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = expandEnv(v)
	}
	return out
}

// settingsDoc is the settings file kept as raw JSON, so that edits through the hub change
// only what they mean to and keep every key Cairn does not know.
type settingsDoc struct {
	top     map[string]json.RawMessage
	servers map[string]map[string]json.RawMessage
}

// readDoc reads the settings file for an edit. A missing file is an empty document; a file
// that does not parse is ErrBadSettings and is never overwritten.
func readDoc(path string) (*settingsDoc, error) {
	d := &settingsDoc{top: map[string]json.RawMessage{}, servers: map[string]map[string]json.RawMessage{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return nil, fmt.Errorf("mcp: reading settings: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return d, nil
	}
	if err := json.Unmarshal(data, &d.top); err != nil {
		return nil, fmt.Errorf("%w: %w (fix the file first; it was not changed)", ErrBadSettings, err)
	}
	if raw, ok := d.top["mcpServers"]; ok {
		var servers map[string]json.RawMessage
		if err := json.Unmarshal(raw, &servers); err != nil {
			return nil, fmt.Errorf("%w: mcpServers: %w (fix the file first; it was not changed)", ErrBadSettings, err)
		}
		for n, s := range servers {
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(s, &fields); err != nil {
				return nil, fmt.Errorf("%w: server %q: %w (fix the file first; it was not changed)", ErrBadSettings, n, err)
			}
			d.servers[n] = fields
		}
	}
	return d, nil
}

// set changes one field of a server; a nil value removes the field.
func (d *settingsDoc) set(server, field string, value any) error {
	fields, ok := d.servers[server]
	if !ok {
		return fmt.Errorf("%w: %q", ErrUnknownServer, server)
	}
	if value == nil {
		delete(fields, field)
		return nil
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("mcp: encoding %s: %w", field, err)
	}
	fields[field] = raw
	return nil
}

// autoApprove returns a server's autoApprove list as written.
func (d *settingsDoc) autoApprove(server string) []string {
	var list []string
	if raw, ok := d.servers[server]["autoApprove"]; ok {
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil // not a list of strings: the edit replaces it
		}
	}
	return list
}

// write saves the document atomically, indented like Cline writes it.
func (d *settingsDoc) write(path string) error {
	servers := make(map[string]json.RawMessage, len(d.servers))
	for n, fields := range d.servers {
		raw, err := json.Marshal(fields)
		if err != nil {
			return fmt.Errorf("mcp: encoding server %q: %w", n, err)
		}
		servers[n] = raw
	}
	raw, err := json.Marshal(servers)
	if err != nil {
		return fmt.Errorf("mcp: encoding settings: %w", err)
	}
	d.top["mcpServers"] = raw
	data, err := json.MarshalIndent(d.top, "", "  ")
	if err != nil {
		return fmt.Errorf("mcp: encoding settings: %w", err)
	}
	if err := workspace.WriteFileAtomic(path, append(data, '\n')); err != nil {
		return fmt.Errorf("mcp: writing settings: %w", err)
	}
	return nil
}

// toggle adds or removes s from list, keeping the order of the rest.
func toggle(list []string, s string, on bool) []string {
	i := slices.Index(list, s)
	switch {
	case on && i < 0:
		return append(list, s)
	case !on && i >= 0:
		return slices.Delete(list, i, i+1)
	}
	return list
}
