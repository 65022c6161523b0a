package sandbox

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
)

// Denial is what the sandbox stopped in one command, found in its output.
type Denial struct {
	// Paths are the files whose writes (or reads, when masked) the policy refused, each with
	// the rule that refused it.
	Paths []PathDenial
	// Network is set when a connection failed with the network off.
	Network bool
}

// PathDenial is one refused path and its rule.
type PathDenial struct {
	Path, Rule string
}

// Empty reports whether nothing was found.
func (d Denial) Empty() bool { return len(d.Paths) == 0 && !d.Network }

// The patterns Explain reads output with, compiled on its first use rather than at process
// start: the launcher re-executes this binary for every sandboxed command and runs before main
// (docs/sandbox.md), and the daemon loads nothing before its first client that it may never
// need (docs/performance.md, "P5 — the daemon at rest").
//
// deniedLine matches the messages a refused file operation or connection prints. netLine
// matches the messages of a name that could not be resolved (the sandbox refuses the UDP
// sockets resolvers use) and netWord, with deniedLine, a connection Landlock refused; a plain
// "connection refused" is a server that is not there, not the sandbox. programPrefix is the
// name a program puts before its message ("touch: ", "/bin/sh: 1: "). pathToken finds
// path-like words: quoted, or bare words with a slash or a dot-name.
type explainPatterns struct {
	deniedLine, netLine, netWord, programPrefix, pathToken *regexp.Regexp
}

var patterns = lazy.Value[explainPatterns]{New: compilePatterns}

func compilePatterns() explainPatterns {
	return explainPatterns{
		deniedLine:    regexp.MustCompile(`(?i)permission denied|read-only file system|operation not permitted|EACCES|EROFS|EPERM`),
		netLine:       regexp.MustCompile(`(?i)could not resolve|name resolution|temporary failure in name|getaddrinfo|ENOTFOUND|EAI_AGAIN|no such host|name or service not known|network is unreachable`),
		netWord:       regexp.MustCompile(`(?i)connect|socket|dial|network|fetch|download|request`),
		programPrefix: regexp.MustCompile(`^\S+?: (\d+: )?`),
		pathToken:     regexp.MustCompile("[\"'`‘“]([^\"'`’”]+)[\"'`’”]|(/[^\\s:'\"]+|[.\\w-]*[/.][\\w.-][^\\s:'\"]*)"),
	}
}

// Explain reads a command's output for what the sandbox under p refused; cwd resolves
// relative paths. It looks only at lines that report a refusal, and names a path only when
// the policy indeed refuses it, so an ordinary "permission denied" is not blamed on it.
func Explain(p Policy, output, cwd string) Denial {
	var d Denial
	pt := patterns.Get()
	seen := map[string]bool{}
	lines := strings.Split(output, "\n")
	for i, line := range lines {
		if !p.Network && (pt.netLine.MatchString(line) || pt.deniedLine.MatchString(line) && netNear(lines, i)) {
			d.Network = true
		}
		if !pt.deniedLine.MatchString(line) {
			continue
		}
		// "/bin/sh: 1: cannot create x": the program that speaks is not what was refused.
		if prog := pt.programPrefix.FindString(line); prog != "" {
			line = line[len(prog):]
		}
		for _, m := range pt.pathToken.FindAllStringSubmatch(line, -1) {
			tok := m[1]
			if tok == "" {
				tok = m[2]
			}
			tok = strings.TrimRight(tok, ".,;)")
			if tok == "" || strings.Contains(tok, "://") {
				continue
			}
			abs := tok
			if !filepath.IsAbs(abs) {
				if cwd == "" {
					continue
				}
				abs = filepath.Join(cwd, abs)
			}
			abs = filepath.Clean(abs)
			if seen[abs] {
				continue
			}
			seen[abs] = true
			if rule := p.Covers(abs); rule != "" {
				d.Paths = append(d.Paths, PathDenial{Path: abs, Rule: rule})
			}
		}
	}
	return d
}

// netNear reports whether a line near lines[i] speaks of a connection: a traceback puts the
// call (`sock.connect(sa)`) a line or two above the error.
func netNear(lines []string, i int) bool {
	for j := max(0, i-3); j <= min(len(lines)-1, i+1); j++ {
		if patterns.Get().netWord.MatchString(lines[j]) {
			return true
		}
	}
	return false
}

// Text says what the sandbox refused, rule by rule, in words for the model and the user.
func (d Denial) Text(p Policy) string {
	var b strings.Builder
	for _, pd := range d.Paths {
		b.WriteString("The sandbox refused " + pd.Path + ": " + pd.Rule + ".\n")
	}
	if d.Network {
		rule := p.NetworkRule
		if rule == "" {
			rule = "network off for this command"
		}
		b.WriteString("The sandbox refused the network: " + rule + ".\n")
	}
	return strings.TrimSpace(b.String())
}

// Widen returns p with the access d needs: the refused paths writable (their folder, for a
// file outside the roots), unmasked and unprotected, the read-only tier raised to the
// workspace tier, and the network on when a connection was refused.
func (d Denial) Widen(p Policy) Policy {
	w := p
	w.Protected = slices.Clone(p.Protected)
	w.Masked = slices.Clone(p.Masked)
	w.Writable = slices.Clone(p.Writable)
	if len(d.Paths) > 0 && w.Tier == ReadOnly {
		w.Tier = Workspace
	}
	for _, pd := range d.Paths {
		w.Protected = slices.DeleteFunc(w.Protected, func(s string) bool { return within(pd.Path, s) || within(s, pd.Path) })
		w.Masked = slices.DeleteFunc(w.Masked, func(s string) bool { return within(pd.Path, s) || within(s, pd.Path) })
		if w.Covers(pd.Path) != "" {
			w.Writable = append(w.Writable, filepath.Dir(pd.Path))
		}
	}
	if d.Network {
		w.Network = true
	}
	return w
}

// Access says in words what a rerun under Widen(p) may do that p did not allow.
func (d Denial) Access() string {
	var parts []string
	for _, pd := range d.Paths {
		parts = append(parts, "write "+pd.Path)
	}
	if d.Network {
		parts = append(parts, "use the network")
	}
	return strings.Join(parts, ", ")
}
