package shell

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/shellcmd"
	"github.com/cairnhq/cairn/core/tools"
)

// SandboxConfig is how a task's commands are confined (README "Security", docs/sandbox.md).
type SandboxConfig struct {
	// Off runs commands without the sandbox: the user's choice, named by OffRule
	// ("--no-sandbox", "the sandboxDisabled setting").
	Off     bool
	OffRule string
	// Network lets auto-approved commands use the network (sandboxNetwork, --network).
	Network bool
	// Base holds the roots, the data folder, the home folder and the user's masks; the
	// temp folder, the task's ports and the ignored files are added per command.
	Base sandbox.Base
}

// SetSandbox sets how the registry's commands are confined.
func (r *Registry) SetSandbox(c SandboxConfig) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sandbox = c
}

func (r *Registry) sandboxConfig() SandboxConfig {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sandbox
}

// ports returns the TCP ports the task's running commands listen on: a later command may
// reach them with the network off.
func (r *Registry) ports() []int {
	r.mu.Lock()
	groups := make([]int, 0, len(r.all))
	for _, t := range r.all {
		if t.group > 0 {
			groups = append(groups, t.group)
		}
	}
	r.mu.Unlock()
	var out []int
	for _, g := range groups {
		out = append(out, listeningPorts(g)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// tempDir returns the commands' private temp folder, the registry's own, which StopAll
// removes.
func (r *Registry) tempDir() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.temp == "" {
		dir, err := os.MkdirTemp("", "cairn-commands-")
		if err != nil {
			return "", err
		}
		r.temp = dir
	}
	return r.temp, nil
}

// readOnlyLine decides whether an auto-approved line runs in the read-only tier: when Cairn's
// classification accepts every part as read-only. Tests replace it to show the kernel holds
// even where the classification is wrong.
var readOnlyLine = func(command string) bool {
	script, err := shellcmd.Parse(command)
	return err == nil && script.ReadOnly()
}

// plan is how one command will run, decided before it is asked.
type plan struct {
	cfg SandboxConfig
	// confined: the command runs in the sandbox; else unconfined says why not, for the
	// approval card ("" when the user turned the sandbox off).
	confined   bool
	unconfined string
	// note is the approval card's line on how the command runs.
	note string
}

// probe says whether the sandbox can be set up here; tests replace it to take the fail-closed
// path on a machine that has the sandbox.
var probe = sandbox.Probe

// planFor decides whether command runs in the sandbox.
func (t *Tool) planFor() plan {
	cfg := t.reg.sandboxConfig()
	if cfg.Off {
		rule := cfg.OffRule
		if rule == "" {
			rule = "the sandboxDisabled setting"
		}
		return plan{cfg: cfg, note: "the sandbox is off (" + rule + ")"}
	}
	if st := probe(); !st.Available {
		return plan{cfg: cfg, unconfined: st.Reason, note: "no sandbox here: " + st.Reason + "; every command asks"}
	}
	return plan{cfg: cfg, confined: true}
}

// policy returns the sandbox policy of a command approved by ans. Approved by the policy as
// read-only: the read-only tier; otherwise the workspace tier. The network is on for a
// command the user approved, and for auto-approved ones only when the user allows it. A
// command approved while flagged as writing a protected file may write it.
func (t *Tool) policy(env *tools.Env, p plan, command string, ans tools.Answer, protectedOK bool) (sandbox.Policy, error) {
	base, err := t.base(env, p)
	if err != nil {
		return sandbox.Policy{}, err
	}
	tier := sandbox.Workspace
	if ans.Auto && readOnlyLine(command) {
		tier = sandbox.ReadOnly
	}
	network, rule := true, ""
	if ans.Auto {
		network = p.cfg.Network
		rule = "the network is off for auto-approved commands (allow it with the sandboxNetwork setting or cairn run --network, or approve the command yourself)"
	}
	pol := base.Policy(tier, network, rule)
	if protectedOK {
		pol.Protected = nil
	}
	return pol, nil
}

// base is what every command of the task is confined by: the roots, the home folder's masks,
// the registry's temp folder, the ports the task's commands listen on and the ignored files.
func (t *Tool) base(env *tools.Env, p plan) (sandbox.Base, error) {
	base := p.cfg.Base
	if len(base.Roots) == 0 && env.Files != nil {
		base.Roots = []string{env.Files.Root()}
	}
	if base.Home == "" {
		base.Home, _ = os.UserHomeDir() // "": no home, nothing of it to mask
	}
	temp, err := t.reg.tempDir()
	if err != nil {
		return sandbox.Base{}, err
	}
	base.Temp = temp
	base.Ports = t.reg.ports()
	base.Ignored = t.reg.ignored(env.Files, base.Roots)
	return base, nil
}

// ignoredTTL is how long the list of ignored files is reused between commands.
const ignoredTTL = 5 * time.Second

// maxIgnoredWalk bounds the entries looked at to find the ignored files of the roots.
const maxIgnoredWalk = 200_000

// ignored returns the files and folders of roots the ignore file hides (masked in the
// sandbox), or nil when no root has an ignore file. A folder that is ignored as a whole is
// one entry; the list is kept for ignoredTTL.
func (r *Registry) ignored(files tools.Files, roots []string) []string {
	if files == nil {
		return nil
	}
	has := false
	for _, root := range roots {
		for _, name := range []string{".clineignore", ".cairnignore"} {
			if _, err := os.Stat(filepath.Join(root, name)); err == nil {
				has = true
			}
		}
	}
	if !has {
		return nil
	}
	r.mu.Lock()
	if time.Since(r.ignoredAt) < ignoredTTL {
		out := r.ignoredList
		r.mu.Unlock()
		return out
	}
	r.mu.Unlock()
	var out []string
	seen := 0
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			seen++
			if err != nil || seen > maxIgnoredWalk {
				return filepath.SkipDir
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if path != root && files.Ignored(path) {
				out = append(out, path)
				if d.IsDir() {
					return filepath.SkipDir
				}
			}
			return nil
		}) // a walk error leaves that part unlisted; the read checks still apply
	}
	r.mu.Lock()
	r.ignoredList, r.ignoredAt = out, time.Now()
	r.mu.Unlock()
	return out
}

// removeNewProtected removes the protected paths a command created in the roots although it
// was auto-approved (existing ones were read-only in its sandbox; a new one cannot be
// covered without leaving a placeholder in the user's tree), and returns them. A repository
// the command created itself (`git init`) keeps its .git.
func removeNewProtected(pol sandbox.Policy, gitBefore map[string]bool) []string {
	before := map[string]bool{}
	for _, p := range pol.Protected {
		before[p] = true
	}
	var removed []string
	for _, p := range sandbox.Protect(pol.Roots, sandbox.ProtectedNames) {
		if before[p] {
			continue
		}
		root := rootOf(pol.Roots, p)
		if strings.HasPrefix(p, filepath.Join(root, ".git")+string(filepath.Separator)) && !gitBefore[root] {
			continue
		}
		if err := os.RemoveAll(p); err == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

func rootOf(roots []string, p string) string {
	for _, r := range roots {
		if strings.HasPrefix(p, r+string(filepath.Separator)) {
			return r
		}
	}
	return ""
}

// gitPresence records which roots hold a .git before a command runs.
func gitPresence(roots []string) map[string]bool {
	out := map[string]bool{}
	for _, r := range roots {
		if _, err := os.Lstat(filepath.Join(r, ".git")); err == nil {
			out[r] = true
		}
	}
	return out
}
