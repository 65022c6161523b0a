// Package policy is what Cairn lets run, written as rules a person can read and an
// organisation can set (README "Security", "Policy files"; docs/settings.md, "Policy files"):
// one JSON format in three layers (managed, user, workspace), rules that allow, ask or deny by
// tool and pattern, and switches (sandbox required, network allowed, --yolo allowed, providers
// and models allowed). Decide returns the decision on one approval with the trail of every
// rule and built-in check that led to it and the file each came from; the settings'
// auto-approval flags, allow list and deny list are read as rules of the same kind, so `cairn
// why`, the chat and the task all give the same answer.
package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cairnhq/cairn/core/config"
)

// Layer names, from the one that binds most to the one that binds least.
const (
	LayerManaged   = "managed"
	LayerUser      = "user"
	LayerWorkspace = "workspace"
	// LayerSession holds the allow rules a user gave in one task's session ("always"
	// answers, config.SessionRule): it binds least, so a deny or ask rule of any file still
	// wins over it, and it allows nothing the settings always ask (Decide).
	LayerSession = "session"
)

// WorkspaceFile is the workspace layer's file, relative to a workspace root; core/protect
// protects it with the rest of .cairn/.
const WorkspaceFile = ".cairn/policy.json"

// File is one policy file.
type File struct {
	Allow []Rule `json:"allow,omitempty"`
	Ask   []Rule `json:"ask,omitempty"`
	Deny  []Rule `json:"deny,omitempty"`
	// SandboxRequired refuses commands where no command sandbox can be made, and refuses
	// --no-sandbox and the sandboxDisabled setting.
	SandboxRequired *bool `json:"sandboxRequired,omitempty"`
	// NetworkAllowed false keeps auto-approved commands off the network whatever --network
	// and sandboxNetwork say.
	NetworkAllowed *bool `json:"networkAllowed,omitempty"`
	// YoloAllowed false refuses --yolo and the yolo setting.
	YoloAllowed *bool `json:"yoloAllowed,omitempty"`
	// Providers and Models, when set, are the only provider presets and models a task may
	// use ("*" globs; "" names the OpenAI-compatible endpoint without a preset).
	Providers []string `json:"providers,omitempty"`
	Models    []string `json:"models,omitempty"`
}

// Rule matches approvals. Exactly one of Command, Files, MCP and Web is set.
type Rule struct {
	// Command is a command entry: program and subcommand words, matched on every part of the
	// line as the allow and deny lists match (README "Security").
	Command string `json:"command,omitempty"`
	// Files is a glob on the file's path: relative to a workspace root, or absolute, or
	// ~/…; `*` stays in one folder, `**` spans any depth.
	Files string `json:"files,omitempty"`
	// Tool narrows a Files rule to "read" or "edit", or to a tool of that kind by name
	// (read_file, write_to_file, …: a name stands for its kind).
	Tool string `json:"tool,omitempty"`
	// MCP is "server", "server/tool" or "server/*".
	MCP string `json:"mcp,omitempty"`
	// Web is a host name, or "*.example.com" for its subdomains and itself.
	Web string `json:"web,omitempty"`
}

// String is the rule as the trail shows it.
func (r Rule) String() string {
	switch {
	case r.Command != "":
		return "command " + fmt.Sprintf("%q", r.Command)
	case r.Files != "":
		if r.Tool != "" {
			return r.Tool + " files " + fmt.Sprintf("%q", r.Files)
		}
		return "files " + fmt.Sprintf("%q", r.Files)
	case r.MCP != "":
		return "MCP " + fmt.Sprintf("%q", r.MCP)
	}
	return "web " + fmt.Sprintf("%q", r.Web)
}

// Check says what is wrong with a rule: it sets one pattern, "tool" narrows a files rule to
// a file tool's kind, and a files glob parses.
func (r Rule) Check() error {
	n := 0
	for _, s := range []string{r.Command, r.Files, r.MCP, r.Web} {
		if strings.TrimSpace(s) != "" {
			n++
		}
	}
	if n != 1 {
		return errors.New("a rule sets exactly one of command, files, mcp and web")
	}
	if r.Tool != "" && r.Files == "" {
		return errors.New(`"tool" narrows a files rule only`)
	}
	if r.Tool != "" && fileKind(r.Tool) == "" {
		return fmt.Errorf("tool %q is not read, edit or a file tool", r.Tool)
	}
	if r.Files != "" {
		if _, err := filepath.Match(strings.ReplaceAll(r.Files, "**", "*"), ""); err != nil {
			return fmt.Errorf("files %q: %w", r.Files, err)
		}
	}
	return nil
}

// Layer is one loaded file.
type Layer struct {
	// Name is LayerManaged, LayerUser, LayerWorkspace or LayerSession.
	Name string
	// Source is where it came from: a path, the editor setting that held it, or for the
	// session layer "task ID".
	Source string
	// Root is the workspace root a workspace layer's relative globs are taken from.
	Root string
	File File
}

// Set is the policy of one workspace: its layers, most binding first. The zero Set (and nil)
// has no rules and no switches: decisions are today's settings alone.
type Set struct {
	Layers []Layer
	// Roots are the workspace roots the user and managed layers' relative globs are taken
	// from (a workspace layer's own root for its rules).
	Roots []string
}

// ErrBadFile wraps a policy file that cannot be read or does not parse: the policy it would
// set is unknown, so nothing goes on as if it were absent.
var ErrBadFile = errors.New("policy file")

// Sources says where to look for the layers.
type Sources struct {
	// Managed are the managed files (ManagedPaths: the system path of this OS).
	Managed []string
	// ManagedJSON is the editor's managed policy setting, a policy file's text ("": none), and
	// ManagedName names it in the trail.
	ManagedJSON, ManagedName string
	// User is the user's file (UserPath).
	User string
	// Roots are the workspace roots; each one's WorkspaceFile is a workspace layer.
	Roots []string
}

// ManagedPaths are the managed policy files of this OS: /etc/cairn/policy.json on Linux and
// other Unix systems, /Library/Application Support/Cairn/policy.json on macOS,
// %ProgramData%\Cairn\policy.json on Windows.
func ManagedPaths() []string {
	switch runtime.GOOS {
	case "darwin":
		return []string{"/Library/Application Support/Cairn/policy.json"}
	case "windows":
		pd := os.Getenv("ProgramData")
		if pd == "" {
			pd = `C:\ProgramData`
		}
		return []string{filepath.Join(pd, "Cairn", "policy.json")}
	}
	return []string{"/etc/cairn/policy.json"}
}

// UserPath is the user's policy file in the config folder, beside cairn run's config.json:
// $XDG_CONFIG_HOME/cairn/policy.json, else ~/.config/cairn/policy.json; "" when there is
// neither.
func UserPath() string {
	base := os.Getenv("XDG_CONFIG_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "cairn", "policy.json")
}

// Load reads the layers. A file that does not exist is no layer; one that cannot be read or
// parsed is an error wrapping ErrBadFile.
func Load(src Sources) (*Set, error) {
	s := &Set{Roots: src.Roots}
	var errs []error
	add := func(name, path, root string) {
		if path == "" {
			return
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%w %s: %w", ErrBadFile, path, err))
			return
		}
		f, err := Parse(data)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w %s: %w", ErrBadFile, path, err))
			return
		}
		s.Layers = append(s.Layers, Layer{Name: name, Source: path, Root: root, File: f})
	}
	for _, p := range src.Managed {
		add(LayerManaged, p, "")
	}
	if strings.TrimSpace(src.ManagedJSON) != "" {
		f, err := Parse([]byte(src.ManagedJSON))
		if err != nil {
			errs = append(errs, fmt.Errorf("%w %s: %w", ErrBadFile, src.ManagedName, err))
		} else {
			s.Layers = append(s.Layers, Layer{Name: LayerManaged, Source: src.ManagedName, File: f})
		}
	}
	add(LayerUser, src.User, "")
	for _, r := range src.Roots {
		add(LayerWorkspace, filepath.Join(r, filepath.FromSlash(WorkspaceFile)), r)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// Parse reads a policy file's text, strictly: an unknown key is an error, so a misspelt
// "deny" does not silently allow.
func Parse(data []byte) (File, error) {
	var f File
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return File{}, err
	}
	for kind, rules := range map[string][]Rule{"allow": f.Allow, "ask": f.Ask, "deny": f.Deny} {
		for i, r := range rules {
			if err := r.Check(); err != nil {
				return File{}, fmt.Errorf("%s[%d]: %w", kind, i, err)
			}
		}
	}
	return f, nil
}

// WithSession is s with the session layer of task id under its other layers: rules, the
// allow rules the user gave in the task's session. roots are the task's workspace roots, for
// relative files globs when s has none of its own. s is not changed; with no rules it is s.
func (s *Set) WithSession(id string, roots []string, rules []config.SessionRule) *Set {
	if len(rules) == 0 {
		return s
	}
	out := &Set{Roots: roots}
	if s != nil {
		out.Layers = append(out.Layers, s.Layers...)
		if len(s.Roots) > 0 {
			out.Roots = s.Roots
		}
	}
	l := Layer{Name: LayerSession, Source: "task " + id}
	for _, r := range rules {
		l.File.Allow = append(l.File.Allow, Rule(r))
	}
	out.Layers = append(out.Layers, l)
	return out
}
