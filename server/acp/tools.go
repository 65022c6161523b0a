package acp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// callID names the tool call of a task's row; rows keep their index for the task's lifetime.
func callID(m *cairnv1.Message) sdk.ToolCallId {
	return sdk.ToolCallId(fmt.Sprintf("cairn-%d", m.GetIndex()))
}

// toolKind is the protocol's kind of a row's action.
func toolKind(m *cairnv1.Message) sdk.ToolKind {
	if m.GetCommand() != nil {
		return sdk.ToolKindExecute
	}
	if m.GetBrowser() != nil {
		return sdk.ToolKindFetch
	}
	if m.GetMcp() != nil {
		return sdk.ToolKindOther
	}
	switch m.GetTool().GetOperation() {
	case cairnv1.ToolOperation_TOOL_OPERATION_READ_FILE, cairnv1.ToolOperation_TOOL_OPERATION_LIST_FILES_TOP_LEVEL,
		cairnv1.ToolOperation_TOOL_OPERATION_LIST_FILES_RECURSIVE, cairnv1.ToolOperation_TOOL_OPERATION_LIST_CODE_DEFINITION_NAMES:
		return sdk.ToolKindRead
	case cairnv1.ToolOperation_TOOL_OPERATION_SEARCH_FILES:
		return sdk.ToolKindSearch
	case cairnv1.ToolOperation_TOOL_OPERATION_EDITED_EXISTING_FILE, cairnv1.ToolOperation_TOOL_OPERATION_NEW_FILE_CREATED:
		return sdk.ToolKindEdit
	case cairnv1.ToolOperation_TOOL_OPERATION_WEB_FETCH:
		return sdk.ToolKindFetch
	case cairnv1.ToolOperation_TOOL_OPERATION_USE_SUBAGENTS, cairnv1.ToolOperation_TOOL_OPERATION_SUMMARIZE_TASK:
		return sdk.ToolKindThink
	}
	return sdk.ToolKindOther
}

// title is the one line the client shows for a row's action.
func title(m *cairnv1.Message) string {
	if c := m.GetCommand(); c != nil {
		return "Run `" + c.GetCommand() + "`"
	}
	if b := m.GetBrowser(); b != nil {
		return strings.TrimSpace("Browser " + b.GetAction() + " " + b.GetUrl())
	}
	if p := m.GetMcp(); p != nil {
		if p.GetToolName() != "" {
			return "MCP " + p.GetServerName() + "/" + p.GetToolName()
		}
		return "MCP " + p.GetServerName() + " read " + p.GetUri()
	}
	t := m.GetTool()
	verb := map[cairnv1.ToolOperation]string{
		cairnv1.ToolOperation_TOOL_OPERATION_READ_FILE:                  "Read",
		cairnv1.ToolOperation_TOOL_OPERATION_LIST_FILES_TOP_LEVEL:       "List",
		cairnv1.ToolOperation_TOOL_OPERATION_LIST_FILES_RECURSIVE:       "List (recursive)",
		cairnv1.ToolOperation_TOOL_OPERATION_LIST_CODE_DEFINITION_NAMES: "Outline",
		cairnv1.ToolOperation_TOOL_OPERATION_SEARCH_FILES:               "Search " + t.GetRegex() + " in",
		cairnv1.ToolOperation_TOOL_OPERATION_EDITED_EXISTING_FILE:       "Edit",
		cairnv1.ToolOperation_TOOL_OPERATION_NEW_FILE_CREATED:           "Create",
		cairnv1.ToolOperation_TOOL_OPERATION_WEB_FETCH:                  "Fetch",
		cairnv1.ToolOperation_TOOL_OPERATION_USE_SUBAGENTS:              "Start subagents",
		cairnv1.ToolOperation_TOOL_OPERATION_SUMMARIZE_TASK:             "Summarize the task",
	}[t.GetOperation()]
	if verb == "" {
		verb = "Tool"
	}
	return strings.TrimSpace(verb + " " + t.GetPath())
}

// abs is a row's path as the client wants it: absolute. Rows carry the paths the task shows:
// relative to the primary root, or `name:rest` inside the root called name (core/workspace,
// Rel); a name that is no root's is a relative path with a colon in it.
func (s *session) abs(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	if name, rest, ok := strings.Cut(p, ":"); ok {
		for _, r := range s.roots[1:] {
			if filepath.Base(r) == name || filepath.Base(resolved(r)) == name {
				return filepath.Join(r, filepath.FromSlash(rest))
			}
		}
	}
	return filepath.Join(s.roots[0], filepath.FromSlash(p))
}

// resolved is a root with its symlinks resolved, as the task names it (core/workspace, New).
func resolved(root string) string {
	if r, err := filepath.EvalSymlinks(root); err == nil {
		return r
	}
	return root
}

// toolCall is the tool_call update of a row.
func (f *follower) toolCall(m *cairnv1.Message, st sdk.ToolCallStatus) sdk.SessionUpdate {
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(toolKind(m)), sdk.WithStartStatus(st)}
	if t := m.GetTool(); t != nil && t.GetOperation() != cairnv1.ToolOperation_TOOL_OPERATION_WEB_FETCH && t.GetPath() != "" {
		opts = append(opts, sdk.WithStartLocations([]sdk.ToolCallLocation{{Path: f.s.abs(t.GetPath())}}))
	}
	if c := f.content(m); len(c) > 0 {
		opts = append(opts, sdk.WithStartContent(c))
	}
	return sdk.StartToolCall(callID(m), title(m), opts...)
}

// content is what a row shows inside its tool call: the edit as diffs, a new file whole.
func (f *follower) content(m *cairnv1.Message) []sdk.ToolCallContent {
	t := m.GetTool()
	switch t.GetOperation() {
	case cairnv1.ToolOperation_TOOL_OPERATION_NEW_FILE_CREATED:
		return []sdk.ToolCallContent{sdk.ToolDiffContent(f.s.abs(t.GetPath()), t.GetContent())}
	case cairnv1.ToolOperation_TOOL_OPERATION_EDITED_EXISTING_FILE:
		var out []sdk.ToolCallContent
		for _, h := range hunks(t.GetDiff()) {
			out = append(out, sdk.ToolDiffContent(f.s.abs(t.GetPath()), h.new, h.old))
		}
		return out
	}
	return nil
}

// hunk is one hunk of a unified diff as the text before and after it.
type hunk struct{ old, new string }

// hunks splits the unified diff an edit row carries into its hunks, each as the old and the
// new text of the lines it covers (context included).
func hunks(diff string) []hunk {
	var out []hunk
	var old, nw []string
	in := false
	flush := func() {
		if in {
			out = append(out, hunk{old: strings.Join(old, "\n"), new: strings.Join(nw, "\n")})
		}
		old, nw = nil, nil
	}
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			flush()
			in = true
		case !in, strings.HasPrefix(l, `\`):
		case strings.HasPrefix(l, "-"):
			old = append(old, l[1:])
		case strings.HasPrefix(l, "+"):
			nw = append(nw, l[1:])
		case strings.HasPrefix(l, " "):
			old, nw = append(old, l[1:]), append(nw, l[1:])
		case l == "":
		}
	}
	flush()
	return out
}

// permission asks the client about an action the approval settings do not cover, and answers
// the task. "Always" answers hold for the rest of the session: an allow becomes allow rules of
// the task's session layer of the policy (UpdateTaskSettings, allowAlways; the shared settings
// and the task's own approval settings never change), a reject is answered here without asking
// again.
func (f *follower) permission(ctx context.Context, m *cairnv1.Message) error {
	id := callID(m)
	sc, scoped := scopeOf(m)
	f.s.mu.Lock()
	rejected, allowed := scoped && f.s.rejected[sc.key], scoped && f.s.allowed[sc.key]
	f.s.mu.Unlock()
	if err := f.s.update(f.toolCall(m, sdk.ToolCallStatusPending)); err != nil {
		return err
	}
	if rejected {
		return f.decide(ctx, m, false, "The user rejected "+sc.shown+" for the rest of the session.")
	}
	if allowed {
		return f.decide(ctx, m, true, "")
	}
	kind := toolKind(m)
	resp, err := f.s.a.connection().RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: f.s.id,
		ToolCall: sdk.ToolCallUpdate{ToolCallId: id, Title: sdk.Ptr(title(m)), Kind: &kind, Status: sdk.Ptr(sdk.ToolCallStatusPending)},
		Options:  permissionOptions(m)})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		f.s.a.log.Warn("acp: asking the client for permission", "err", err)
		return f.decide(ctx, m, false, "")
	}
	if resp.Outcome.Selected == nil {
		// Cancelled: the prompt is being cancelled, and with it the task's run.
		return f.s.update(sdk.UpdateToolCall(id, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed)))
	}
	switch resp.Outcome.Selected.OptionId {
	case "allow_always":
		if !scoped {
			// Not offered: the client chose an option it was not given.
			return f.decide(ctx, m, true, "")
		}
		if err := f.allowAlways(ctx, m, sc); err != nil {
			f.s.a.log.Warn("acp: keeping an always-allow for the session", "err", err)
		}
		return f.decide(ctx, m, true, "")
	case "allow_once":
		return f.decide(ctx, m, true, "")
	case "reject_always":
		if scoped {
			f.s.mu.Lock()
			f.s.rejected[sc.key] = true
			f.s.mu.Unlock()
		}
	}
	return f.decide(ctx, m, false, "")
}

// decide answers the ask and updates its tool call.
func (f *follower) decide(ctx context.Context, m *cairnv1.Message, allow bool, text string) error {
	r, st := cairnv1.AskResponse_ASK_RESPONSE_REJECT, sdk.ToolCallStatusFailed
	if allow {
		r, st = cairnv1.AskResponse_ASK_RESPONSE_APPROVE, sdk.ToolCallStatusCompleted
		if m.GetCommand() != nil {
			st = sdk.ToolCallStatusInProgress
			f.command = callID(m)
		}
	}
	if err := f.answer(ctx, m, r, text); err != nil {
		return err
	}
	if err := f.s.update(sdk.UpdateToolCall(callID(m), sdk.WithUpdateStatus(st))); err != nil || st != sdk.ToolCallStatusInProgress {
		return err
	}
	return f.s.commandStarted(callID(m), m.GetCommand().GetCommand())
}

// allowAlways keeps the scope sc of m as allow rules of the task's session layer of the policy
// (docs/settings.md, "Policy files"), saved with the task: the task itself then runs what they
// cover without asking, a deny or ask rule of any policy file still wins, and `cairn why
// --task` shows them. Reading an MCP server's resources has no rule of its own: the session
// answers those asks itself.
func (f *follower) allowAlways(ctx context.Context, m *cairnv1.Message, sc scope) error {
	rules := sessionRules(m, sc)
	if len(rules) == 0 {
		f.s.mu.Lock()
		f.s.allowed[sc.key] = true
		f.s.mu.Unlock()
		return nil
	}
	f.s.mu.Lock()
	id := f.s.taskID
	f.s.mu.Unlock()
	_, err := f.s.a.o.Tasks.UpdateTaskSettings(ctx, &cairnv1.UpdateTaskSettingsRequest{TaskId: id, SessionAllow: rules})
	return err
}
