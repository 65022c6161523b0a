package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Settings edits write mcp_settings.json (keeping every key they do not change) and apply it
// at once; the watcher then sees a file that is already applied. A settings file that does not
// parse is never overwritten: the edit returns ErrBadSettings.

// edit applies fn to the settings document and reloads.
func (h *Hub) edit(fn func(d *settingsDoc) error) error {
	if h.opts.SettingsPath == "" {
		return fmt.Errorf("%w: no settings file", ErrBadSettings)
	}
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return ErrClosed
	}
	d, err := readDoc(h.opts.SettingsPath)
	if err != nil {
		return err
	}
	if err := fn(d); err != nil {
		return err
	}
	if err := d.write(h.opts.SettingsPath); err != nil {
		return err
	}
	return h.Reload()
}

// SetDisabled enables or disables a server.
func (h *Hub) SetDisabled(name string, disabled bool) error {
	return h.edit(func(d *settingsDoc) error {
		var v any
		if disabled {
			v = true
		}
		return d.set(name, "disabled", v)
	})
}

// SetTimeout sets a server's timeout in seconds (min 1).
func (h *Hub) SetTimeout(name string, seconds int) error {
	if seconds < 1 {
		return fmt.Errorf("%w: timeout must be at least 1 second", ErrBadSettings)
	}
	return h.edit(func(d *settingsDoc) error { return d.set(name, "timeout", seconds) })
}

// SetToolAutoApprove adds a tool to its server's autoApprove list or removes it.
func (h *Hub) SetToolAutoApprove(name, tool string, on bool) error {
	return h.edit(func(d *settingsDoc) error {
		return d.set(name, "autoApprove", toggle(d.autoApprove(name), tool, on))
	})
}

// Delete removes a server from the settings.
func (h *Hub) Delete(name string) error {
	return h.edit(func(d *settingsDoc) error {
		if _, ok := d.servers[name]; !ok {
			return fmt.Errorf("%w: %q", ErrUnknownServer, name)
		}
		delete(d.servers, name)
		return nil
	})
}

// AddRemote adds an SSE or Streamable HTTP server.
func (h *Hub) AddRemote(name, url, typ string) error {
	name = strings.TrimSpace(name)
	if typ == "" {
		typ = TypeStreamableHTTP
	}
	cfg := ServerConfig{Type: typ, URL: strings.TrimSpace(url)}
	if name == "" {
		return fmt.Errorf("%w: a name is required", ErrBadName)
	}
	if err := cfg.validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrBadSettings, err)
	}
	return h.edit(func(d *settingsDoc) error {
		if _, ok := d.servers[name]; ok {
			return fmt.Errorf("%w: %q already exists", ErrBadName, name)
		}
		d.servers[name] = map[string]json.RawMessage{}
		if err := d.set(name, "type", typ); err != nil {
			return err
		}
		return d.set(name, "url", cfg.URL)
	})
}

// Import copies the servers of another settings file in Cline's schema (such as Cline's
// cline_mcp_settings.json) into the hub's settings and applies them. Servers whose name is
// taken are skipped. It returns the names added and the names skipped.
func (h *Hub) Import(path string) (added, skipped []string, err error) {
	if h.opts.SettingsPath == "" {
		return nil, nil, fmt.Errorf("%w: no settings file", ErrBadSettings)
	}
	if added, skipped, err = ImportSettings(h.opts.SettingsPath, path); err != nil {
		return nil, nil, err
	}
	return added, skipped, h.Reload()
}

// ImportSettings copies the servers of the file src into the settings file dst without a
// hub (the CLI). Names already in dst are skipped; dst keeps everything else it has.
func ImportSettings(dst, src string) (added, skipped []string, err error) {
	if _, err := os.Stat(src); err != nil {
		return nil, nil, fmt.Errorf("mcp: import: %w", err)
	}
	from, err := readDoc(src)
	if err != nil {
		return nil, nil, fmt.Errorf("mcp: import %s: %w", filepath.Base(src), err)
	}
	to, err := readDoc(dst)
	if err != nil {
		return nil, nil, err
	}
	names := make([]string, 0, len(from.servers))
	for n := range from.servers {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, taken := to.servers[n]; taken {
			skipped = append(skipped, n)
			continue
		}
		to.servers[n] = from.servers[n]
		added = append(added, n)
	}
	if len(added) == 0 {
		return added, skipped, nil
	}
	return added, skipped, to.write(dst)
}

// EnsureSettingsFile creates an empty settings file when there is none, so the editor can
// open it.
func (h *Hub) EnsureSettingsFile() error {
	if h.opts.SettingsPath == "" {
		return fmt.Errorf("%w: no settings file", ErrBadSettings)
	}
	if _, err := os.Stat(h.opts.SettingsPath); err == nil {
		return nil
	}
	d, err := readDoc(h.opts.SettingsPath)
	if err != nil {
		return err
	}
	return d.write(h.opts.SettingsPath)
}
