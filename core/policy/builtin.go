package policy

import (
	"fmt"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/shellcmd"
	"github.com/cairnhq/cairn/core/tools"
)

// The settings read as rules (docs/settings.md, "Policy files": the mapping). Each step of the
// auto-approval policy of docs/architecture.md, "Approvals" adds a Reason in the README's
// words; the last one that decided is the decision.

// builtin is the settings' decision on req, with policy allow entries extra (command entries
// that count as allow-list entries; for other actions, whether an allow rule matched).
func builtin(p config.AutoApprove, req tools.Approval, extraCommands []Reason, extraAllow *Reason) (bool, []Reason) {
	var trail []Reason
	if req.Unconfined != "" {
		return false, append(trail, Reason{Verdict: Ask, From: "built-in",
			Text: fmt.Sprintf("no command sandbox here (%s): never auto-approved, --yolo included (fail closed)", req.Unconfined)})
	}
	ok, trail := category(p, req, extraCommands, extraAllow)
	if req.Protected == "" {
		return ok, trail
	}
	if !ok {
		return false, append(trail, Reason{Verdict: Ask, From: "built-in",
			Text: fmt.Sprintf("writes a protected file (%s): always asked, unless --yolo or the \"protected\" category", req.Protected)})
	}
	switch {
	case p.YOLO:
		return true, append(trail, Reason{Verdict: Run, From: "autoApprove.yolo",
			Text: fmt.Sprintf("writes a protected file (%s): --yolo lets it through", req.Protected)})
	case p.Enabled && p.Protected:
		return true, append(trail, Reason{Verdict: Run, From: "autoApprove.protected",
			Text: fmt.Sprintf("writes a protected file (%s): the \"protected\" category lets it through", req.Protected)})
	}
	// The protected file decides: it comes first, before the category that would have run it.
	return false, append([]Reason{{Verdict: Ask, From: "built-in",
		Text: fmt.Sprintf("writes a protected file (%s): always asked, unless --yolo or the \"protected\" category", req.Protected)}}, trail...)
}

// category is the decision of the request's own category.
func category(p config.AutoApprove, req tools.Approval, extraCommands []Reason, extraAllow *Reason) (bool, []Reason) {
	if req.Category == tools.CategoryCommand {
		return command(p, req, extraCommands)
	}
	if p.YOLO {
		return true, []Reason{{Verdict: Run, From: "autoApprove.yolo", Text: "--yolo: approves everything not on the deny list"}}
	}
	if extraAllow != nil {
		return true, []Reason{*extraAllow}
	}
	if !p.Enabled {
		return false, []Reason{{Verdict: Ask, From: "autoApprove.enabled", Text: "auto-approve is off: asked"}}
	}
	flag := func(on bool, field, label string) (bool, []Reason) {
		if on {
			return true, []Reason{{Verdict: Run, From: field, Text: fmt.Sprintf("%q is on: auto-approved", label)}}
		}
		return false, []Reason{{Verdict: Ask, From: field, Text: fmt.Sprintf("%q is off: asked", label)}}
	}
	switch req.Category {
	case tools.CategoryRead:
		if req.Inside || !p.ReadFiles {
			return flag(p.ReadFiles, "autoApprove.readFiles", "Read project files")
		}
		return flag(p.ReadFilesOutside, "autoApprove.readFilesOutside", "Read all files")
	case tools.CategoryEdit:
		if req.Inside || !p.EditFiles {
			return flag(p.EditFiles, "autoApprove.editFiles", "Edit project files")
		}
		return flag(p.EditFilesOutside, "autoApprove.editFilesOutside", "Edit all files")
	case tools.CategoryBrowser:
		return flag(p.Browser, "autoApprove.browser", "Use the browser")
	case tools.CategoryLocal:
		return flag(p.LocalNetwork, "autoApprove.localNetwork", "Open pages on this machine or the local network")
	case tools.CategoryMCP:
		if !p.MCP {
			return flag(false, "autoApprove.mcp", "Use MCP servers")
		}
		if !req.MCPAutoApproved {
			return false, []Reason{{Verdict: Ask, From: "mcp_settings.json",
				Text: fmt.Sprintf("the tool %s is not on its server's autoApprove list: asked", req.MCPTool)}}
		}
		return true, []Reason{{Verdict: Run, From: "autoApprove.mcp", Text: "\"Use MCP servers\" is on and the tool is on its server's autoApprove list: auto-approved"}}
	}
	return false, []Reason{{Verdict: Ask, From: "built-in", Text: "no auto-approval category covers it: asked"}}
}

// command decides a command line (docs/architecture.md, "Approvals"; README "Security").
func command(p config.AutoApprove, req tools.Approval, extra []Reason) (bool, []Reason) {
	script, err := shellcmd.Parse(req.Command)
	if err != nil {
		return false, []Reason{{Verdict: Ask, From: "built-in", Text: "the line does not parse: always asked, even with --yolo"}}
	}
	if hit, denied := script.Denied(p.DenyList); denied {
		if hit.Entry != "" {
			return false, []Reason{{Verdict: Ask, From: "commandDenyList", Rule: hit.Entry,
				Text: fmt.Sprintf("on the deny list (%q, commandDenyList): always asked, even with --yolo", hit.Entry)}}
		}
		return false, []Reason{{Verdict: Ask, From: "built-in", Text: fmt.Sprintf("%s: always asked, even with --yolo", hit.Reason)}}
	}
	if p.YOLO {
		return true, []Reason{{Verdict: Run, From: "autoApprove.yolo", Text: "--yolo: approves everything not on the deny list"}}
	}
	if req.OutsideWrite != "" && (!p.Enabled || !p.EditFiles || !p.EditFilesOutside) {
		return false, []Reason{{Verdict: Ask, From: "autoApprove.editFilesOutside",
			Text: fmt.Sprintf("writes outside the workspace (%s): asked unless edits outside the workspace are auto-approved", req.OutsideWrite)}}
	}
	if script.Allowed(p.AllowList) {
		return true, []Reason{{Verdict: Run, From: "commandAllowList", Rule: allowEntry(script, p.AllowList),
			Text: fmt.Sprintf("on the allow list (%s, commandAllowList): runs without asking", quoteAll(allowEntries(script, p.AllowList)))}}
	}
	if len(extra) > 0 {
		entries := append(append([]string(nil), p.AllowList...), rulesOf(extra)...)
		if script.Allowed(entries) {
			var out []Reason
			for _, r := range extra {
				if script.Allowed([]string{r.Rule}) || partMatches(script, r.Rule) {
					out = append(out, r)
				}
			}
			return true, out
		}
	}
	if !p.Enabled {
		return false, []Reason{{Verdict: Ask, From: "autoApprove.enabled", Text: "auto-approve is off and no allow entry covers every part: asked"}}
	}
	if p.AllCommands {
		return true, []Reason{{Verdict: Run, From: "autoApprove.allCommands", Text: "\"Execute all commands\" is on: runs everything not on the deny list"}}
	}
	if req.ReadsOutside != "" && (!p.ReadFiles || !p.ReadFilesOutside) {
		return false, []Reason{{Verdict: Ask, From: "autoApprove.readFilesOutside",
			Text: fmt.Sprintf("reads outside the workspace (%s): asked unless reads outside the workspace are auto-approved", req.ReadsOutside)}}
	}
	switch {
	case !p.SafeCommands:
		return false, []Reason{{Verdict: Ask, From: "autoApprove.safeCommands", Text: "\"Execute safe commands\" is off: asked"}}
	case req.RequiresApproval:
		return false, []Reason{{Verdict: Ask, From: "model", Text: "the model asked for approval (requires_approval): asked"}}
	case req.Caution != "":
		return false, []Reason{{Verdict: Ask, From: "built-in", Text: fmt.Sprintf("%s: not run as read-only", req.Caution)}}
	case !script.ReadOnly():
		return false, []Reason{{Verdict: Ask, From: "built-in", Text: "not read-only by Cairn's classification: asked unless \"Execute all commands\" is on"}}
	}
	return true, []Reason{{Verdict: Run, From: "autoApprove.safeCommands", Text: "read-only by Cairn's classification and \"Execute safe commands\" is on: runs without asking"}}
}

// allowEntries are the entries of list that cover some part of the line.
func allowEntries(script *shellcmd.Script, list []string) []string {
	var out []string
	for _, e := range list {
		if partMatches(script, e) {
			out = append(out, e)
		}
	}
	return out
}

func allowEntry(script *shellcmd.Script, list []string) string {
	if e := allowEntries(script, list); len(e) > 0 {
		return e[0]
	}
	return ""
}

// partMatches reports whether entry covers at least one simple command of the line.
func partMatches(script *shellcmd.Script, entry string) bool {
	for _, c := range script.Commands {
		one := &shellcmd.Script{Commands: []shellcmd.Command{c}}
		if !c.Wrapper && one.Allowed([]string{entry}) {
			return true
		}
	}
	return false
}

func rulesOf(rs []Reason) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Rule)
	}
	return out
}

func quoteAll(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		out += fmt.Sprintf("%q", s)
	}
	return out
}
