package acp

import (
	"path"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/shellcmd"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// scope is what an "always" answer to a permission request covers, written in the option's
// name so that the user reads it before choosing (README "Use Cairn in Zed, JetBrains,
// Neovim"): for a command its programs and subcommands (`npm test`), for an edit the session,
// for an MCP tool that tool.
type scope struct {
	// key names the scope among the session's "always" answers.
	key string
	// shown is the scope as the option names it ("`npm test`", "edits").
	shown string
	// commands are a command's allow-list entries, program and subcommand each; nil for
	// other actions.
	commands []string
}

// scopeOf is the scope an "always" answer to m would have; ok is false when no narrow scope
// exists (a bare interpreter, a command without a subcommand, a line the allow list cannot
// cover, an ask a managed policy rule decided: no grant could loosen it, docs/settings.md
// "Policy files"), and the request then offers no "always".
func scopeOf(m *cairnv1.Message) (scope, bool) {
	if m.GetWhy().GetLocked() {
		return scope{}, false
	}
	if c := m.GetCommand(); c != nil {
		cmds, ok := commandScope(c.GetCommand())
		if !ok {
			return scope{}, false
		}
		return scope{key: "command:" + strings.Join(cmds, "\n"), shown: "`" + strings.Join(cmds, "`, `") + "`", commands: cmds}, true
	}
	switch m.GetAsk() {
	case cairnv1.AskKind_ASK_KIND_BROWSER_ACTION_LAUNCH:
		return scope{key: "browser", shown: "the browser"}, true
	case cairnv1.AskKind_ASK_KIND_USE_MCP_SERVER:
		p := m.GetMcp()
		if p.GetToolName() == "" {
			return scope{key: "mcp:" + p.GetServerName() + " resources", shown: "reading " + p.GetServerName() + "'s resources"}, true
		}
		return scope{key: "mcp:" + p.GetServerName() + "/" + p.GetToolName(), shown: "the MCP tool " + p.GetServerName() + "/" + p.GetToolName()}, true
	}
	outside := ""
	if m.GetTool().GetOutsideWorkspace() {
		outside = ", outside the workspace too,"
	}
	switch toolKind(m) {
	case sdk.ToolKindEdit:
		return scope{key: "edit", shown: "edits" + outside}, true
	case sdk.ToolKindFetch:
		return scope{key: "browser", shown: "the browser"}, true
	}
	return scope{key: "read", shown: "reads" + outside}, true
}

// permissionOptions are the options of a permission request about m: allow and reject once,
// and the "always" answers with their scope in their names when there is one.
func permissionOptions(m *cairnv1.Message) []sdk.PermissionOption {
	opts := []sdk.PermissionOption{{OptionId: "allow_once", Name: "Allow once", Kind: sdk.PermissionOptionKindAllowOnce}}
	sc, ok := scopeOf(m)
	if ok {
		opts = append(opts, sdk.PermissionOption{OptionId: "allow_always", Name: "Always allow " + sc.shown + " in this session",
			Kind: sdk.PermissionOptionKindAllowAlways})
	}
	opts = append(opts, sdk.PermissionOption{OptionId: "reject_once", Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce})
	if ok {
		opts = append(opts, sdk.PermissionOption{OptionId: "reject_always", Name: "Always reject " + sc.shown + " in this session",
			Kind: sdk.PermissionOptionKindRejectAlways})
	}
	return opts
}

// interpreters run whatever program their arguments hold (`python3 -c …`, `node x.js`, `sh
// -c …`), and package runners whatever package they name: allowing one always would allow
// anything, so no "always" is offered for them. Names are compared without a version suffix
// ("python3.12" is "python").
var interpreters = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"python": true, "py": true, "pypy": true, "node": true, "nodejs": true, "deno": true, "bun": true,
		"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "fish": true, "csh": true, "tcsh": true,
		"pwsh": true, "powershell": true, "cmd": true, "ruby": true, "irb": true, "perl": true, "php": true,
		"lua": true, "luajit": true, "r": true, "rscript": true, "osascript": true, "tclsh": true, "awk": true,
		"gawk": true, "java": true, "jshell": true, "npx": true, "bunx": true, "pnpx": true, "uvx": true, "pipx": true,
	}
}}

// commandScope is the allow-list entries an "always" for the command line covers: the
// program and subcommand of each of its commands ("npm test", "git status"); a command a
// wrapper runs (`sh -c 'npm test'`, `timeout 60 go test`) is scoped as itself. ok is false
// when a command is an interpreter, a script named by a relative path or has no subcommand,
// or when the entries would not let this very line through the allow list (a redirection
// writing a file, a hidden command).
func commandScope(line string) (cmds []string, ok bool) {
	script, err := shellcmd.Parse(line)
	if err != nil {
		return nil, false
	}
	seen := map[string]bool{}
	for _, c := range script.Commands {
		if c.Wrapper {
			continue
		}
		if len(c.Words) < 2 || !c.Words[0].Literal() || !c.Words[1].Literal() {
			return nil, false
		}
		w0 := c.Words[0].Text
		prog, sub := path.Base(w0), c.Words[1].Text
		// A program named by a relative path (./run.sh) is the workspace's own script: the
		// allow list matches its name wherever it is, so it gets no "always".
		relative := strings.Contains(w0, "/") && !path.IsAbs(w0)
		if relative || interpreters.Get()[strings.ToLower(strings.TrimRight(c.Name(), "0123456789."))] || !subcommand(sub) {
			return nil, false
		}
		if e := prog + " " + sub; !seen[e] {
			seen[e] = true
			cmds = append(cmds, e)
		}
	}
	if len(cmds) == 0 || !script.Allowed(cmds) {
		return nil, false
	}
	return cmds, true
}

// subcommand reports whether a command's second word names a subcommand (`test`, `run`,
// `status`) rather than an option, a file or a value.
func subcommand(w string) bool {
	if w == "" || w[0] == '-' {
		return false
	}
	for _, r := range w {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '-' && r != '_' && r != ':' {
			return false
		}
	}
	return true
}

// sessionRules are the allow rules an "always" answer of scope sc to m gives, in the policy
// files' format: a command's entries as command rules, edits and reads as files rules (inside
// the workspace, or everywhere when the file was outside it), the browser as a web rule for
// every host, an MCP tool as an mcp rule. nil for reading an MCP server's resources.
func sessionRules(m *cairnv1.Message, sc scope) []*cairnv1.PolicyRule {
	var out []*cairnv1.PolicyRule
	for _, c := range sc.commands {
		out = append(out, &cairnv1.PolicyRule{Command: c})
	}
	if len(out) > 0 {
		return out
	}
	files := "**"
	if m.GetTool().GetOutsideWorkspace() {
		files = "/**"
	}
	switch {
	case sc.key == "edit" || sc.key == "read":
		return []*cairnv1.PolicyRule{{Files: files, Tool: sc.key}}
	case sc.key == "browser":
		return []*cairnv1.PolicyRule{{Web: "*"}}
	case m.GetMcp().GetToolName() != "":
		return []*cairnv1.PolicyRule{{Mcp: m.GetMcp().GetServerName() + "/" + m.GetMcp().GetToolName()}}
	}
	return nil
}
