package task

import (
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/tools"
)

// autoApproved applies the auto-approval policy of spec §2.2 to one request. A command that
// matches the deny list is never auto-approved, whatever else is on (YOLO included).
func autoApproved(p config.AutoApprove, req tools.Approval) bool {
	if req.Category == tools.CategoryCommand && denied(p.DenyList, req.Command) {
		return false
	}
	if p.YOLO {
		return true
	}
	if req.Category == tools.CategoryCommand && allowed(p.AllowList, req.Command) {
		return true
	}
	if !p.Enabled {
		return false
	}
	switch req.Category {
	case tools.CategoryRead:
		if req.Inside {
			return p.ReadFiles
		}
		return p.ReadFiles && p.ReadFilesOutside
	case tools.CategoryEdit:
		if req.Inside {
			return p.EditFiles
		}
		return p.EditFiles && p.EditFilesOutside
	case tools.CategoryCommand:
		if req.RequiresApproval {
			return p.AllCommands
		}
		return p.SafeCommands || p.AllCommands
	case tools.CategoryBrowser:
		return p.Browser
	case tools.CategoryMCP:
		return p.MCP && req.MCPAutoApproved
	}
	return false
}

// allowed reports whether every simple command of cmd starts with an allow-list prefix.
func allowed(list []string, cmd string) bool {
	if len(list) == 0 || strings.TrimSpace(cmd) == "" {
		return false
	}
	for _, stage := range splitCommands(cmd) {
		line := strings.Join(stage, " ")
		ok := false
		for _, prefix := range list {
			prefix = strings.TrimSpace(prefix)
			if prefix != "" && (line == prefix || strings.HasPrefix(line, prefix+" ")) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// denied reports whether cmd matches an entry of the deny list. Entries are matched against
// every simple command of a compound command line (`a && b`, `a; b`, `a | b`, subshells):
//   - "name word -xy --long": the command's name equals name (after a leading sudo/env/
//     command/exec/nohup/xargs), the words appear in order among its arguments, the short
//     flags appear in any grouping (-rf = -fr = -r -f = --recursive --force) and long flags
//     appear as written;
//   - "left|right": a pipeline where a stage named left feeds a later stage named right;
//   - anything with shell punctuation that is not a pipe (":(){"): a plain substring.
func denied(list []string, cmd string) bool {
	pipelines := splitPipelines(cmd)
	for _, entry := range list {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		switch {
		case strings.Contains(entry, "|") && !strings.ContainsAny(entry, "(){};&"):
			l, r, _ := strings.Cut(entry, "|")
			left, right := strings.Fields(l), strings.Fields(r)
			for _, pl := range pipelines {
				for i := range pl {
					if !stageMatches(pl[i], left) {
						continue
					}
					for j := i + 1; j < len(pl); j++ {
						if stageMatches(pl[j], right) {
							return true
						}
					}
				}
			}
		case strings.ContainsAny(entry, "(){};&|$`"):
			if strings.Contains(strings.ReplaceAll(cmd, " ", ""), strings.ReplaceAll(entry, " ", "")) {
				return true
			}
		default:
			pattern := strings.Fields(entry)
			for _, pl := range pipelines {
				for _, st := range pl {
					if stageMatches(st, pattern) {
						return true
					}
				}
			}
		}
	}
	return false
}

var longToShort = map[string]byte{"--recursive": 'r', "--force": 'f'}

var wrappers = map[string]bool{"sudo": true, "env": true, "command": true, "exec": true,
	"nohup": true, "xargs": true, "time": true, "nice": true, "doas": true}

// stageMatches matches one simple command (as words) against a pattern (as words).
func stageMatches(words, pattern []string) bool {
	if len(pattern) == 0 {
		return false
	}
	for start := 0; start < len(words); start++ {
		w := words[start]
		if strings.Contains(w, "=") && !strings.HasPrefix(w, "-") {
			continue // VAR=value assignment before the command
		}
		if matchFrom(words[start:], pattern) {
			return true
		}
		// Look through wrappers: `sudo rm -rf x`, `env A=1 rm -rf x`, `xargs rm -rf`.
		if !wrappers[filepath.Base(w)] {
			return false
		}
	}
	return false
}

func matchFrom(words, pattern []string) bool {
	name := filepath.Base(words[0])
	if name != pattern[0] && !(strings.HasSuffix(pattern[0], "*") && strings.HasPrefix(name, strings.TrimSuffix(pattern[0], "*"))) {
		// "mkfs" also matches mkfs.ext4.
		if !(strings.HasPrefix(name, pattern[0]+".")) {
			return false
		}
	}
	args := words[1:]
	short := map[byte]bool{}
	long := map[string]bool{}
	var plain []string
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "--"):
			long[a] = true
			if c, ok := longToShort[a]; ok {
				short[c] = true
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for i := 1; i < len(a); i++ {
				short[a[i]] = true
			}
		default:
			plain = append(plain, a)
		}
	}
	next := 0
	for _, p := range pattern[1:] {
		switch {
		case strings.HasPrefix(p, "--"):
			if !long[p] {
				return false
			}
		case strings.HasPrefix(p, "-"):
			for i := 1; i < len(p); i++ {
				if !short[p[i]] {
					return false
				}
			}
		default:
			found := false
			for next < len(plain) {
				next++
				if plain[next-1] == p {
					found = true
					break
				}
			}
			if !found {
				return false
			}
		}
	}
	return true
}

// splitCommands splits a command line into simple commands (as words).
func splitCommands(cmd string) [][]string {
	var out [][]string
	for _, pl := range splitPipelines(cmd) {
		out = append(out, pl...)
	}
	return out
}

// splitPipelines tokenises cmd with shell quoting and splits it into pipelines of simple
// commands. It is deliberately conservative: unknown syntax becomes words, so a dangerous
// command cannot hide from the deny list behind it.
func splitPipelines(cmd string) [][][]string {
	var (
		pipelines [][][]string
		pipeline  [][]string
		words     []string
		cur       strings.Builder
		inWord    bool
		quote     byte
	)
	endWord := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	endStage := func() {
		endWord()
		if len(words) > 0 {
			pipeline = append(pipeline, words)
			words = nil
		}
	}
	endPipeline := func() {
		endStage()
		if len(pipeline) > 0 {
			pipelines = append(pipelines, pipeline)
			pipeline = nil
		}
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		if quote != 0 {
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
			continue
		}
		switch c {
		case '\'', '"':
			quote = c
			inWord = true
		case '\\':
			if i+1 < len(cmd) {
				i++
				cur.WriteByte(cmd[i])
				inWord = true
			}
		case ' ', '\t':
			endWord()
		case '|':
			if i+1 < len(cmd) && cmd[i+1] == '|' {
				i++
				endPipeline()
			} else {
				endStage()
			}
		case ';', '\n', '&', '(', ')', '{', '}', '`':
			endPipeline()
		case '$':
			if i+1 < len(cmd) && cmd[i+1] == '(' {
				i++
				endPipeline()
			} else {
				cur.WriteByte(c)
				inWord = true
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	endPipeline()
	return pipelines
}
