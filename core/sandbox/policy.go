package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Tier is how much a sandboxed process may change.
type Tier string

// The two tiers (README "Security").
const (
	// ReadOnly is for what was auto-approved as read-only: no writable path but the private
	// temp folder.
	ReadOnly Tier = "read-only"
	// Workspace is for approved commands, commands auto-approved as commands, hooks and the
	// like: the roots, the build caches and the private temp folder writable, the protected
	// paths inside the roots read-only.
	Workspace Tier = "workspace"
)

// Policy is what one sandboxed process may do. Paths are absolute.
type Policy struct {
	Tier Tier `json:"tier"`
	// Roots are the task's workspace roots: writable in the Workspace tier.
	Roots []string `json:"roots,omitempty"`
	// Writable are further folders writable in the Workspace tier: the build caches, a
	// worktree's git directories, an MCP server's configured folders.
	Writable []string `json:"writable,omitempty"`
	// Protected are existing files and folders inside the roots that stay read-only in
	// every tier, new entries inside a protected folder included.
	Protected []string `json:"protected,omitempty"`
	// Masked read as absent (an empty file or folder that cannot be written).
	Masked []string `json:"masked,omitempty"`
	// Network allows outgoing connections; without it only TCP connections to Ports (the
	// task's own servers on this machine) go through.
	Network bool  `json:"network,omitempty"`
	Ports   []int `json:"ports,omitempty"`
	// Temp is the private temp folder (TMPDIR); writable in every tier.
	Temp string `json:"temp"`
	// Rule names the setting or reason behind the network decision, for the explanation of a
	// denial ("network off for auto-approved commands").
	NetworkRule string `json:"networkRule,omitempty"`
	// HostUID and HostGID are the caller's ids, which the command gets back inside; set by
	// the launch itself.
	HostUID int `json:"uid"`
	HostGID int `json:"gid"`
}

// CredentialStores are the user's secrets that read as absent in every tier, relative to the
// home folder. The settings add more (sandboxMaskedPaths).
var CredentialStores = []string{
	".ssh", ".aws", ".gnupg", ".config/gcloud", ".kube", ".docker/config.json", ".netrc",
	".git-credentials", ".config/gh", ".azure", ".npmrc", ".pypirc", ".cargo/credentials",
	".cargo/credentials.toml",
}

// BuildCaches are the common build caches, relative to the home folder, writable in the
// Workspace tier so `go test`, `npm test`, `pip install` and `cargo test` work; GOCACHE,
// GOMODCACHE, npm_config_cache and CARGO_HOME add theirs (Caches). Folders that hold programs
// the user runs later (~/go/bin, ~/.cargo/bin, toolchains) are not among them.
var BuildCaches = []string{".cache", "go/pkg/mod", ".npm", ".cargo/registry", ".cargo/git", ".gradle/caches", ".m2/repository"}

// Caches returns the existing build caches of the user whose home is home, and those the
// environment names.
func Caches(home string, getenv func(string) string) []string {
	var out []string
	add := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		if _, err := os.Stat(p); err == nil {
			out = append(out, filepath.Clean(p))
		}
	}
	if home != "" {
		for _, c := range BuildCaches {
			add(filepath.Join(home, c))
		}
	}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "npm_config_cache", "XDG_CACHE_HOME", "PIP_CACHE_DIR"} {
		add(getenv(v))
	}
	if c := getenv("CARGO_HOME"); c != "" {
		add(filepath.Join(c, "registry"))
		add(filepath.Join(c, "git"))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Masks returns the credential stores under home, the extra paths and Cairn's own data folder,
// as paths to mask. A path that holds a root or writable folder (a worktree lives in the data
// folder) is not masked whole: its other entries are, so the root stays reachable.
func Masks(home string, extra []string, keep []string) []string {
	var want []string
	if home != "" {
		for _, c := range CredentialStores {
			want = append(want, filepath.Join(home, c))
		}
	}
	for _, e := range extra {
		if strings.HasPrefix(e, "~/") && home != "" {
			e = filepath.Join(home, e[2:])
		}
		if filepath.IsAbs(e) {
			want = append(want, filepath.Clean(e))
		}
	}
	var out []string
	for _, p := range want {
		out = append(out, maskAround(p, keep)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// maskAround returns p when it exists and holds none of keep; else the entries of p that are
// not on the way to a kept path, recursively.
func maskAround(p string, keep []string) []string {
	if _, err := os.Lstat(p); err != nil {
		return nil
	}
	holds := false
	for _, k := range keep {
		if k == p {
			return nil // a root is never masked
		}
		if within(k, p) {
			holds = true
		}
	}
	if !holds {
		return []string{p}
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		out = append(out, maskAround(filepath.Join(p, e.Name()), keep)...)
	}
	return out
}

// within reports whether p lies inside dir (or is dir).
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// Covers returns the rule of p that keeps a write from going through, in words, or "" when p
// is writable under the policy.
func (p *Policy) Covers(path string) string {
	path = filepath.Clean(path)
	for _, m := range p.Masked {
		if within(path, m) {
			return "it is masked (" + m + " reads as absent in the sandbox)"
		}
	}
	for _, pr := range p.Protected {
		if within(path, pr) {
			return "it is a protected path (" + pr + " is read-only in the sandbox)"
		}
	}
	if p.Temp != "" && within(path, p.Temp) {
		return ""
	}
	if p.Tier == ReadOnly {
		return "the command ran in the read-only tier: nothing but its temp folder is writable"
	}
	for _, r := range append(slices.Clone(p.Roots), p.Writable...) {
		if within(path, r) {
			return ""
		}
	}
	return "it is outside the task's roots (only the roots, the build caches and a temp folder are writable)"
}
