package policy

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/shellcmd"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

// Verdict is what happens to an action.
type Verdict string

// The verdicts, from the most to the least permissive.
const (
	// Run: auto-approved, it runs without asking.
	Run Verdict = "run"
	// Ask: the user is asked.
	Ask Verdict = "ask"
	// Deny: a policy rule denies it; it does not run and nobody is asked.
	Deny Verdict = "deny"
	// Refuse: a policy switch refuses it (a command where the sandbox is required and none
	// can be made); it does not run and nobody is asked.
	Refuse Verdict = "refuse"
)

// Reason is one step of a decision: a rule that matched or a built-in check, and where it
// came from (a policy file, a setting, "built-in").
type Reason struct {
	// Verdict is what this step alone says.
	Verdict Verdict
	// Text is the step in the README's words.
	Text string
	// Rule is the pattern of the rule or list entry that matched ("" for a check).
	Rule string
	// From is the file or setting the step comes from.
	From string
	// Layer is the policy layer of a rule from a policy file ("" otherwise).
	Layer string
}

// Result is a decision with its trail.
type Result struct {
	Verdict Verdict
	// Trail is every rule and check that led to Verdict, the deciding one first.
	Trail []Reason
	// Locked is set when a managed rule decided: the approval offers no "always" answer,
	// since no grant of the session can loosen it.
	Locked bool
}

// Line is the decision in one line: the verdict and the deciding reason
// (`ask — on the deny list ("git push --force", commandDenyList): always asked, even with --yolo`).
func (r Result) Line() string {
	if len(r.Trail) == 0 {
		return string(r.Verdict)
	}
	return string(r.Verdict) + " — " + r.Trail[0].Text
}

// Lines are the decision and then every other step of the trail, one each.
func (r Result) Lines() []string {
	out := []string{r.Line()}
	for _, t := range r.Trail[min(1, len(r.Trail)):] {
		out = append(out, "  "+string(t.Verdict)+" — "+t.Text)
	}
	return out
}

// Input is one approval to decide.
type Input struct {
	// Settings are the task's auto-approval settings (after Clamp).
	Settings config.AutoApprove
	// Approval is what the tool asks for.
	Approval tools.Approval
	// Roots are the workspace roots, for files rules of the user and managed layers.
	Roots []string
}

// Decide decides one approval: policy deny rules (any layer) deny; a required sandbox that
// cannot be made refuses a command; policy ask rules ask, --yolo and allow rules included;
// else the settings decide (read as rules, builtin.go) with the policy allow rules counting
// as allow-list entries. Nothing the settings always ask (the deny list, a line that hides
// what it runs, a protected file, a command outside the sandbox) is run because of an allow
// rule. A nil Set decides by the settings alone.
func (s *Set) Decide(in Input) Result {
	req := in.Approval
	var deny, ask, allow []Reason
	locked := false
	if s != nil {
		for _, l := range s.Layers {
			for _, k := range []struct {
				rules []Rule
				v     Verdict
				into  *[]Reason
			}{{l.File.Deny, Deny, &deny}, {l.File.Ask, Ask, &ask}, {l.File.Allow, Run, &allow}} {
				for _, r := range k.rules {
					if !s.matches(r, l, in, k.v) {
						continue
					}
					*k.into = append(*k.into, ruleReason(r, k.v, l))
					if l.Name == LayerManaged && k.v != Run {
						locked = true
					}
				}
			}
		}
	}
	if len(deny) > 0 {
		return Result{Verdict: Deny, Trail: append(deny, overruled(ask, allow)...), Locked: locked}
	}
	if req.Category == tools.CategoryCommand && req.Unconfined != "" {
		if w := s.SandboxRequired(); w.Set() {
			return Result{Verdict: Refuse, Locked: true, Trail: []Reason{{Verdict: Refuse, From: w.Source, Layer: w.Layer,
				Text: fmt.Sprintf("no command sandbox here (%s) and the %s policy requires one (\"sandboxRequired\": true, %s): refused", req.Unconfined, w.Layer, w.Source)}}}
		}
	}
	var cmdAllow []Reason
	var otherAllow *Reason
	if len(allow) > 0 {
		if req.Category == tools.CategoryCommand {
			cmdAllow = allow
		} else {
			otherAllow = &allow[0]
		}
	}
	ok, trail := builtin(in.Settings, req, cmdAllow, otherAllow)
	if len(ask) > 0 {
		if ok {
			trail = overruled(nil, trail)
		}
		return Result{Verdict: Ask, Trail: append(append(ask, trail...), overruled(nil, allow)...), Locked: locked}
	}
	v := Ask
	if ok {
		v = Run
	}
	if !ok && len(allow) > 0 {
		trail = append(trail, overruled(nil, allow)...)
	}
	return Result{Verdict: v, Trail: trail, Locked: locked}
}

// overruled marks rules that matched but did not decide.
func overruled(ask, allow []Reason) []Reason {
	var out []Reason
	for _, r := range append(append([]Reason(nil), ask...), allow...) {
		r.Text += " (overruled)"
		out = append(out, r)
	}
	return out
}

func ruleReason(r Rule, v Verdict, l Layer) Reason {
	what := map[Verdict]string{Deny: "denied", Ask: "always asked, even with --yolo", Run: "allowed"}[v]
	word := map[Verdict]string{Deny: "deny", Ask: "ask", Run: "allow"}[v]
	if l.Name == LayerSession {
		return Reason{Verdict: v, From: l.Source, Layer: l.Name, Rule: ruleText(r),
			Text: fmt.Sprintf("%s rule %s of this session (%s): %s", word, r, l.Source, what)}
	}
	return Reason{Verdict: v, From: l.Source, Layer: l.Name, Rule: ruleText(r),
		Text: fmt.Sprintf("%s rule %s of the %s policy (%s): %s", word, r, l.Name, l.Source, what)}
}

// ruleText is the rule's pattern, which for a command is its allow-list entry.
func ruleText(r Rule) string {
	for _, s := range []string{r.Command, r.Files, r.MCP, r.Web} {
		if s != "" {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// matches reports whether rule r of layer l, saying v, covers the request.
func (s *Set) matches(r Rule, l Layer, in Input, v Verdict) bool {
	req := in.Approval
	switch {
	case r.Command != "":
		if req.Category != tools.CategoryCommand {
			return false
		}
		script, err := shellcmd.Parse(req.Command)
		if err != nil {
			return false
		}
		return partMatches(script, r.Command) || matchesDenyForm(script, r.Command)
	case r.Files != "":
		if req.Path == "" || (req.Category != tools.CategoryRead && req.Category != tools.CategoryEdit) {
			return false
		}
		if r.Tool != "" && string(req.Category) != fileKind(r.Tool) {
			return false
		}
		roots := in.Roots
		if len(roots) == 0 && s != nil {
			roots = s.Roots
		}
		if l.Root != "" {
			roots = []string{l.Root}
		}
		return fileMatches(r.Files, req.Path, roots)
	case r.MCP != "":
		if req.Category != tools.CategoryMCP {
			return false
		}
		server, tool, hasTool := strings.Cut(r.MCP, "/")
		if server != req.MCPServer {
			return false
		}
		return !hasTool || tool == "*" || tool == req.MCPTool
	case r.Web != "":
		if req.Category != tools.CategoryBrowser && req.Category != tools.CategoryLocal {
			return false
		}
		u, err := url.Parse(req.Text)
		if err != nil || u.Hostname() == "" {
			return false
		}
		// "*" is every host; allowed, it leaves a page on this machine or the local network
		// to its own setting, as "Use the browser" does (README "Security").
		if strings.TrimSpace(r.Web) == "*" {
			return v != Run || req.Category == tools.CategoryBrowser
		}
		return hostMatches(r.Web, u.Hostname())
	}
	return false
}

// matchesDenyForm lets ask and deny rules match as the deny list does: flags in any spelling
// (`git push --force` covers `git push -f origin`).
func matchesDenyForm(script *shellcmd.Script, entry string) bool {
	hit, ok := script.Denied([]string{entry})
	return ok && hit.Entry != ""
}

// fileKind is the kind a files rule's tool names: "read" or "edit", or "" when it names
// neither.
func fileKind(tool string) string {
	switch tool {
	case "read", toolnames.ReadFile, toolnames.ListFiles, toolnames.SearchFiles, toolnames.ListCodeDefinitionNames:
		return string(tools.CategoryRead)
	case "edit", toolnames.WriteToFile, toolnames.ReplaceInFile:
		return string(tools.CategoryEdit)
	}
	return ""
}

// FileKind is the approval category of a file tool's name ("" when it is none): what `cairn
// why --tool` asks about.
func FileKind(tool string) tools.Category { return tools.Category(fileKind(tool)) }

// fileMatches matches a glob against abs: absolute (or ~/) globs as they are, relative ones
// against abs relative to each root.
func fileMatches(glob, abs string, roots []string) bool {
	glob = filepath.ToSlash(strings.TrimSpace(glob))
	if strings.HasPrefix(glob, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			glob = filepath.ToSlash(home) + glob[1:]
		}
	}
	if filepath.IsAbs(glob) {
		return globMatch(glob, filepath.ToSlash(abs))
	}
	if strings.HasPrefix(glob, "/") {
		// On Windows a glob from the root without a drive ("/**") is taken on every drive.
		return globMatch(glob, filepath.ToSlash(strings.TrimPrefix(abs, filepath.VolumeName(abs))))
	}
	for _, r := range roots {
		rel, err := filepath.Rel(r, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if globMatch(glob, filepath.ToSlash(rel)) {
			return true
		}
	}
	return false
}

// globMatch matches slash-separated paths: `*` within one segment, `**` any number of
// segments.
func globMatch(glob, p string) bool {
	return segMatch(strings.Split(glob, "/"), strings.Split(p, "/"))
}

func segMatch(g, p []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			for i := 0; i <= len(p); i++ {
				if segMatch(g[1:], p[i:]) {
					return true
				}
			}
			return false
		}
		if len(p) == 0 {
			return false
		}
		if ok, err := filepath.Match(g[0], p[0]); err != nil || !ok {
			return false
		}
		g, p = g[1:], p[1:]
	}
	return len(p) == 0
}

// hostMatches matches a host pattern: a name, or "*.example.com" for example.com and its
// subdomains.
func hostMatches(pattern, host string) bool {
	pattern, host = strings.ToLower(strings.TrimSpace(pattern)), strings.ToLower(host)
	if rest, ok := strings.CutPrefix(pattern, "*."); ok {
		return host == rest || strings.HasSuffix(host, "."+rest)
	}
	return host == pattern
}
