package task

import (
	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/shellcmd"
	"github.com/cairnhq/cairn/core/tools"
)

// autoApproved applies the auto-approval policy (docs/architecture.md, "Approvals") to one request.
// A write to a protected file (req.Protected) needs, on top of its own category, YOLO or the
// separate "protected" category: auto-approved edits and commands alone never change what git, the
// editor or Cairn later run.
func autoApproved(p config.AutoApprove, req tools.Approval) bool {
	if req.Unconfined != "" || !categoryApproved(p, req) {
		return false
	}
	return req.Protected == "" || p.YOLO || p.Enabled && p.Protected
}

// categoryApproved is the policy for the request's own category.
func categoryApproved(p config.AutoApprove, req tools.Approval) bool {
	if req.Category == tools.CategoryCommand {
		return commandAutoApproved(p, req)
	}
	if p.YOLO {
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
	case tools.CategoryBrowser:
		return p.Browser
	case tools.CategoryLocal:
		return p.LocalNetwork
	case tools.CategoryMCP:
		return p.MCP && req.MCPAutoApproved
	}
	return false
}

// commandAutoApproved decides whether a command runs without asking. Cairn judges the
// command, not the model:
//   - a line that does not parse, hides what it runs, or has any part on the deny list is
//     always asked, YOLO included;
//   - YOLO runs everything else;
//   - a line that writes a file outside the workspace is asked unless edits outside the
//     workspace are auto-approved, whatever else allows it;
//   - the user's allow list runs a line whose every part matches an entry (and that writes
//     no file through a redirection), whatever the model said;
//   - "all commands" runs everything else;
//   - "safe commands" runs a line only when Cairn's read-only classification accepts every
//     part, nothing in the workspace argues against it (req.Caution), every file it prints
//     is inside the workspace unless reads outside it are auto-approved, and the model did
//     not ask for approval: requires_approval can add caution, never remove it.
func commandAutoApproved(p config.AutoApprove, req tools.Approval) bool {
	script, err := shellcmd.Parse(req.Command)
	if err != nil {
		return false
	}
	if _, denied := script.Denied(p.DenyList); denied {
		return false
	}
	if p.YOLO {
		return true
	}
	if req.OutsideWrite != "" && (!p.Enabled || !p.EditFiles || !p.EditFilesOutside) {
		return false
	}
	if script.Allowed(p.AllowList) {
		return true
	}
	if !p.Enabled {
		return false
	}
	if p.AllCommands {
		return true
	}
	if req.ReadsOutside != "" && (!p.ReadFiles || !p.ReadFilesOutside) {
		return false
	}
	return p.SafeCommands && !req.RequiresApproval && req.Caution == "" && script.ReadOnly()
}
