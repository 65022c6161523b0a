package shellcmd

import (
	"fmt"
	"strings"
)

// GitConfigHarmless reads the text of a git configuration file (a repository's .git/config,
// or its config.worktree) and reports whether git, running a read-only subcommand there, would
// only do what git does: no setting names a program to run, a file to write or another
// configuration to read. When it would not, the second result names the first such key
// (section.key as written, lower case) or says that the file could not be read.
//
// The caller reads the file; this function never touches the disk. Refused: every key that
// runs a program (core.fsmonitor unless a boolean, core.pager, core.editor, core.sshCommand,
// core.askPass, core.gitProxy, core.alternateRefsCommand, sequence.editor, pager.*,
// diff.external, diff.*.textconv, diff.*.command, difftool.*, mergetool.*, merge.*.driver,
// filter.*, credential.*helper, gpg.program and gpg.*.program, remote.*.uploadpack,
// remote.*.receivepack, remote.*.vcs, uploadpack.packObjectsHook, interactive.diffFilter,
// browser.*, web.browser, man.*, submodule.*.update), every key that points git elsewhere
// (core.worktree, core.hooksPath, include.*, includeIf.*, url.*, protocol.*), and trace2's
// targets, which write files. Aliases are harmless: git never lets one replace a built-in
// subcommand, and the read-only classification accepts built-ins only. Unknown keys are
// harmless.
func GitConfigHarmless(config []byte) (bool, string) {
	p := configParser{src: string(config)}
	for {
		key, value, ok, err := p.next()
		if err != nil {
			return false, err.Error()
		}
		if !ok {
			return true, ""
		}
		if harmfulConfig(key, value) {
			return false, key
		}
	}
}

// harmfulConfig judges one key ("section.subsection.name", section and name in lower case).
func harmfulConfig(key, value string) bool {
	section, rest, _ := strings.Cut(key, ".")
	name := rest
	sub := ""
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		sub, name = rest[:i], rest[i+1:]
	}
	switch section {
	case "include", "includeif", "url", "protocol", "pager", "filter", "difftool", "mergetool",
		"browser", "man":
		return true
	case "core":
		switch name {
		case "fsmonitor":
			switch strings.ToLower(value) {
			case "", "false", "no", "off", "0", "true", "yes", "on", "1":
				return false // off, or git's own daemon
			}
			return true
		case "pager", "editor", "sshcommand", "askpass", "gitproxy", "alternaterefscommand",
			"worktree", "hookspath":
			return true
		}
	case "sequence":
		return name == "editor"
	case "diff":
		return sub == "" && name == "external" || sub != "" && (name == "textconv" || name == "command")
	case "merge":
		return sub != "" && name == "driver"
	case "credential":
		return name == "helper"
	case "gpg":
		return name == "program"
	case "remote":
		return name == "uploadpack" || name == "receivepack" || name == "vcs"
	case "uploadpack":
		return name == "packobjectshook"
	case "interactive":
		return name == "difffilter"
	case "web":
		return name == "browser"
	case "submodule":
		return name == "update"
	case "trace2":
		return strings.HasSuffix(name, "target")
	}
	return false
}

// configParser walks git's configuration syntax: [section], [section "subsection"], the old
// [section.subsection], `name = value` and a bare `name` (true), values with quotes, escapes
// and a backslash at the end of a line continuing it, and # or ; comments.
type configParser struct {
	src     string
	pos     int
	section string // "section" or "section.subsection"
}

func (p *configParser) next() (key, value string, ok bool, err error) {
	for {
		p.skipSpace(true)
		if p.pos >= len(p.src) {
			return "", "", false, nil
		}
		c := p.src[p.pos]
		switch {
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			if err := p.header(); err != nil {
				return "", "", false, err
			}
		case isAlpha(c):
			if p.section == "" {
				return "", "", false, fmt.Errorf("git config: a key before any section")
			}
			start := p.pos
			for p.pos < len(p.src) && (isAlpha(p.src[p.pos]) || p.src[p.pos] == '-' ||
				p.src[p.pos] >= '0' && p.src[p.pos] <= '9') {
				p.pos++
			}
			name := strings.ToLower(p.src[start:p.pos])
			p.skipSpace(false)
			v := ""
			if p.pos < len(p.src) && p.src[p.pos] == '=' {
				p.pos++
				if v, err = p.value(); err != nil {
					return "", "", false, err
				}
			} else if p.pos < len(p.src) && p.src[p.pos] != '\n' && p.src[p.pos] != '#' && p.src[p.pos] != ';' &&
				p.src[p.pos] != '\r' {
				return "", "", false, fmt.Errorf("git config: a malformed line")
			} else {
				p.skipLine()
			}
			return p.section + "." + name, v, true, nil
		default:
			return "", "", false, fmt.Errorf("git config: a malformed line")
		}
	}
}

func (p *configParser) header() error {
	p.pos++ // [
	start := p.pos
	for p.pos < len(p.src) && (isAlpha(p.src[p.pos]) || p.src[p.pos] == '-' || p.src[p.pos] == '.' ||
		p.src[p.pos] >= '0' && p.src[p.pos] <= '9') {
		p.pos++
	}
	section := strings.ToLower(p.src[start:p.pos])
	if section == "" {
		return fmt.Errorf("git config: a malformed section")
	}
	if p.pos < len(p.src) && p.src[p.pos] == ' ' {
		p.skipSpace(false)
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return fmt.Errorf("git config: a malformed section")
		}
		p.pos++
		var sub strings.Builder
		for {
			if p.pos >= len(p.src) || p.src[p.pos] == '\n' {
				return fmt.Errorf("git config: a malformed section")
			}
			c := p.src[p.pos]
			p.pos++
			if c == '"' {
				break
			}
			if c == '\\' && p.pos < len(p.src) {
				c = p.src[p.pos]
				p.pos++
			}
			sub.WriteByte(c)
		}
		section += "." + sub.String()
	}
	if p.pos >= len(p.src) || p.src[p.pos] != ']' {
		return fmt.Errorf("git config: a malformed section")
	}
	p.pos++
	p.section = section
	return nil // a key may follow on the same line
}

func (p *configParser) value() (string, error) {
	var b strings.Builder
	quoted := false
	pending := "" // spaces kept only if more value follows
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		p.pos++
		switch {
		case c == '\n':
			if quoted {
				return "", fmt.Errorf("git config: a quote left open")
			}
			return b.String(), nil
		case !quoted && (c == '#' || c == ';'):
			p.skipLine()
			return b.String(), nil
		case c == '"':
			b.WriteString(pending)
			pending = ""
			quoted = !quoted
		case c == '\\':
			if p.pos >= len(p.src) {
				return "", fmt.Errorf("git config: a malformed escape")
			}
			e := p.src[p.pos]
			p.pos++
			b.WriteString(pending)
			pending = ""
			switch e {
			case '\n':
			case '\r':
				if p.pos < len(p.src) && p.src[p.pos] == '\n' {
					p.pos++
				}
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			case '"', '\\':
				b.WriteByte(e)
			default:
				return "", fmt.Errorf("git config: a malformed escape")
			}
		case !quoted && (c == ' ' || c == '\t' || c == '\r'):
			if b.Len() > 0 {
				pending += string(c)
			}
		default:
			b.WriteString(pending)
			pending = ""
			b.WriteByte(c)
		}
	}
	if quoted {
		return "", fmt.Errorf("git config: a quote left open")
	}
	return b.String(), nil
}

func (p *configParser) skipSpace(newlines bool) {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\r':
		case '\n':
			if !newlines {
				return
			}
		default:
			if p.pos == 0 && strings.HasPrefix(p.src, "\ufeff") {
				p.pos += len("\ufeff")
				continue
			}
			return
		}
		p.pos++
	}
}

func (p *configParser) skipLine() {
	for p.pos < len(p.src) && p.src[p.pos] != '\n' {
		p.pos++
	}
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
