package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Base is what every policy of one task (or hook, MCP server, eval run) starts from; Policy
// turns it into the policy of one process.
type Base struct {
	// Roots are the workspace roots; Writable more folders writable in the Workspace tier.
	Roots    []string
	Writable []string
	// ProtectedNames are root-relative paths that stay read-only (ProtectedNames below by
	// default, which core/protect's list gives with .git narrowed).
	ProtectedNames []string
	// Home is the user's home folder ("" : none), DataDir Cairn's data folder, both masked
	// (the data folder around the roots it holds); ExtraMasks are the user's own additions.
	Home       string
	DataDir    string
	ExtraMasks []string
	// Ignored are files and folders of the roots that the ignore file hides.
	Ignored []string
	// Temp is the private temp folder.
	Temp string
	// Ports are the task's own listening TCP ports, reachable with the network off.
	Ports []int
	// NoCaches leaves the build caches read-only.
	NoCaches bool
}

// Policy returns the policy of one process in tier with the network on or off; rule names
// the setting behind the network decision.
func (b Base) Policy(tier Tier, network bool, rule string) Policy {
	p := Policy{Tier: tier, Roots: clean(b.Roots), Temp: b.Temp, Network: network, NetworkRule: rule,
		Ports: slices.Clone(b.Ports)}
	p.Writable = clean(b.Writable)
	if !b.NoCaches && b.Home != "" {
		p.Writable = append(p.Writable, Caches(b.Home, os.Getenv)...)
	}
	keep := append(slices.Clone(p.Roots), p.Writable...)
	if b.Temp != "" {
		keep = append(keep, b.Temp)
	}
	extra := slices.Clone(b.ExtraMasks)
	if b.DataDir != "" {
		extra = append(extra, b.DataDir)
	}
	p.Masked = append(Masks(b.Home, extra, keep), clean(b.Ignored)...)
	names := b.ProtectedNames
	if names == nil {
		names = ProtectedNames
	}
	p.Protected = Protect(p.Roots, names)
	return p
}

// ProtectedNames are the protected paths that exist as folders or files at a root's top: the
// protected list of core/protect (README "Security") with .git narrowed to what git runs or
// reads as settings, so that `git add`, `commit`, `checkout` and `branch` still work.
var ProtectedNames = []string{
	".git/hooks", ".git/config", ".git/config.worktree", ".git/info", ".git/modules",
	".husky", ".clinerules", ".cairnrules", ".cairn", ".cursor/rules", ".claude", ".vscode",
	".clineignore", ".cairnignore", "AGENTS.md", ".cursorrules", ".windsurfrules", ".roomodes",
}

// Protect returns the entries of names that exist under each root, and for a root whose .git
// is a file (a worktree, a submodule), the hooks, config and info of the git folders it
// names.
func Protect(roots []string, names []string) []string {
	var out []string
	for _, r := range roots {
		for _, n := range names {
			p := filepath.Join(r, filepath.FromSlash(n))
			if _, err := os.Lstat(p); err == nil {
				out = append(out, p)
			}
		}
		if gitDir := gitFileDir(r); gitDir != "" {
			dirs := []string{gitDir}
			if common := commonDir(gitDir); common != "" {
				dirs = append(dirs, common)
			}
			for _, d := range dirs {
				for _, n := range []string{"hooks", "config", "config.worktree", "info", "modules"} {
					if p := filepath.Join(d, n); exists(p) {
						out = append(out, p)
					}
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// GitDirs returns, for a root whose .git is a file (a linked worktree), the folders git
// writes on add, commit, checkout and branch: the worktree's own git folder and the shared
// repository's objects, refs, logs and packed-refs. Nil for an ordinary repository (its .git
// lies inside the root).
func GitDirs(root string) []string {
	gitDir := gitFileDir(root)
	if gitDir == "" {
		return nil
	}
	out := []string{gitDir}
	if common := commonDir(gitDir); common != "" {
		for _, n := range []string{"objects", "refs", "logs", "packed-refs", "index", "FETCH_HEAD", "ORIG_HEAD"} {
			if p := filepath.Join(common, n); exists(p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// gitFileDir returns the folder a root's `.git` file names (`gitdir: …`), or "".
func gitFileDir(root string) string {
	f, err := os.Open(filepath.Join(root, ".git"))
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }() // read-only
	st, err := f.Stat()
	if err != nil || st.IsDir() {
		return ""
	}
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return ""
	}
	dir, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return ""
	}
	dir = strings.TrimSpace(dir)
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	return filepath.Clean(dir)
}

// commonDir returns the shared repository folder of a linked worktree's git folder, or "".
func commonDir(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return ""
	}
	c := strings.TrimSpace(string(b))
	if !filepath.IsAbs(c) {
		c = filepath.Join(gitDir, c)
	}
	return filepath.Clean(c)
}

func clean(paths []string) []string {
	var out []string
	for _, p := range paths {
		if p != "" {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}
