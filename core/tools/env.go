package tools

import (
	"context"
	"io"
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/sandbox"
)

// Env is what a running tool may use. The loop builds one per call; tools must not keep it.
type Env struct {
	Files    Files
	Host     Host
	UI       UI
	Settings Settings
	// Mode is "act" or "plan".
	Mode string
	// Scratch is a folder the task owns, outside the workspace, where tools keep files the
	// model may read back (the whole output of a long command); read_file treats it as part
	// of the workspace. "" when the task has none: tools then keep nothing there.
	Scratch string
	// Account is the calling task's record of model use: a tool that makes model requests
	// on the task's behalf (subagents) charges them here. Nil when the caller keeps none.
	Account Account
	// Modes changes the calling task's mode (switch_mode). Nil when the task cannot switch.
	Modes ModeSwitcher
}

// ModeSwitcher changes a task's mode (docs/modes.md). Its methods take the task's locks
// themselves: call them with none held.
type ModeSwitcher interface {
	// Current is the slug of the task's mode now.
	Current() string
	// Name returns a mode's display name; false when the task has no such mode.
	Name(slug string) (string, bool)
	// Switch puts the task in that mode from its next request on.
	Switch(slug string) error
}

// Account is a task's record of model use. Work done with the model for the task by someone
// else (a subagent) is charged to it, so it counts toward the task's cost and its per-task
// request and cost limits. Its methods are safe for concurrent use.
type Account interface {
	// AddRequest counts one model request toward the task's request limit.
	AddRequest()
	// AddUsage adds a finished request's tokens and cost (USD) to the task.
	AddUsage(u llm.Usage, cost float64)
	// Exhausted says, in words for the user, which of the task's limits is reached; "" when
	// none is.
	Exhausted() string
}

// InScratch reports whether abs (absolute, cleaned, as Files.Resolve returns it) lies in the
// task's scratch folder.
func (e *Env) InScratch(abs string) bool {
	if e.Scratch == "" {
		return false
	}
	rel, err := filepath.Rel(e.Scratch, abs)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Settings are the task settings tools read.
type Settings struct {
	// OutputLineLimit caps command output sent to the model (head and tail kept). Default 500.
	OutputLineLimit int
	// OutputByteLimit caps the bytes of that output the same way. Default 50 000.
	OutputByteLimit int
	// ReadFileLineLimit: files longer than this return the first part with a note. Default 2000.
	ReadFileLineLimit int
	// FullEditResults always returns the whole file after an edit (docs/tools.md, "Editing files").
	FullEditResults bool
	// SupportsImages is set when the model accepts image blocks.
	SupportsImages bool
}

// Files is the workspace as tools see it. The concrete type lives in core/workspace.
type Files interface {
	// Root is the primary workspace root (absolute).
	Root() string
	// Resolve maps a model-supplied path (relative to the primary root, `name:` prefixed for
	// other roots, or absolute) to an absolute, cleaned path with symlinks resolved as far as
	// they exist. inside reports whether the result lies in a workspace root; approvals use it.
	Resolve(path string) (abs string, inside bool, err error)
	// Ignored reports whether the user's ignore file (.clineignore/.cairnignore) blocks abs.
	Ignored(abs string) bool
	// Rel returns the path to show the user and the model: root-relative when inside
	// (prefixed `name:` for non-primary roots), else absolute.
	Rel(abs string) string
}

// UI lets a tool talk to the user through the task's message list. The loop implements it and
// applies the auto-approval policy in Approve.
type UI interface {
	// Approve asks the user to approve an action, unless the auto-approval policy allows it.
	Approve(ctx context.Context, req Approval) (Answer, error)
	// Ask posts an ask message and blocks until the user answers or ctx ends.
	Ask(ctx context.Context, kind msg.Kind, text string, payload msg.Payload) (Answer, error)
	// Say posts a message. A partial say followed by another say of the same kind updates the
	// same row in place; partial=false finalises it.
	Say(ctx context.Context, kind msg.Kind, text string, payload msg.Payload, partial bool)
}

// OutcomeRecorder is implemented by a UI that can show how an approved (or rejected) action
// ended on the chat row its last Approve posted. It is optional: a UI without rows to update
// (the CLI, test fakes) need not implement it. Use RecordOutcome.
type OutcomeRecorder interface {
	// RecordOutcome sets the outcome on the row of the last Approve through this UI; it does
	// nothing when that Approve posted no row of the action (the user declined to continue
	// past the auto-approval limit) or none was made.
	RecordOutcome(ctx context.Context, o msg.Outcome)
}

// RecordOutcome records o through ui when ui supports it.
func RecordOutcome(ctx context.Context, ui UI, o msg.Outcome) {
	if r, ok := ui.(OutcomeRecorder); ok {
		r.RecordOutcome(ctx, o)
	}
}

// Approval describes an action waiting for the user.
type Approval struct {
	Ask      msg.Kind // tool, command, browser_action_launch, use_mcp_server
	Category Category
	// Path is the resolved absolute path for read/edit tools; Inside reports whether it lies
	// in the workspace (read/edit auto-approval differs inside and outside).
	Path   string
	Inside bool
	// Command and RequiresApproval for execute_command: the deny list and allow list apply.
	Command          string
	RequiresApproval bool
	// MCPServer/MCPTool for use_mcp_tool: also needs the tool on the server's autoApprove list.
	MCPServer, MCPTool string
	MCPAutoApproved    bool
	// Protected says why the action writes a protected file (core/protect): it is then
	// auto-approved only under YOLO or the "protected" category, never by the edit or command
	// categories alone. Empty for ordinary actions.
	Protected string
	// OutsideWrite, for execute_command, is a file outside the workspace the command writes
	// (tools.OutsideWriteCommand): the command is then auto-approved only under YOLO or when
	// edits outside the workspace are, as for the edit tools. Empty when every write is inside.
	OutsideWrite string
	// ReadsOutside, for execute_command, is a file outside the workspace a reading command
	// prints: "safe commands" then run it only when reads outside the workspace are
	// auto-approved, as for read_file.
	ReadsOutside string
	// Caution says why a command Cairn would otherwise classify as read-only must not run as
	// one here (a repository whose config runs programs, git output that may show files the
	// ignore file hides). It only takes the "safe commands" path away.
	Caution string
	// Unconfined says why the command would run outside the command sandbox because none can
	// be set up here: such a command is never auto-approved (README "Security": fail closed).
	// "" when it runs in the sandbox or the user turned the sandbox off.
	Unconfined string
	Text       string
	Payload    msg.Payload
}

// Answer is the user's reply to an ask.
type Answer struct {
	Approved bool
	Text     string
	Images   []string
	Files    []string
	// Auto is set when the policy approved without asking.
	Auto bool
}

// Host is the editor (or CLI, or direct disk/process fallback) the daemon works through.
type Host interface {
	Diffs() DiffPresenter
	Terminal() Terminal
	Editor() Editor
}

// DiffPresenter shows a proposed file change for review (docs/tools.md, "write_to_file and
// replace_in_file").
type DiffPresenter interface {
	// Open shows original ↔ proposed for abs. isNew is set when the file does not exist yet.
	Open(ctx context.Context, abs string, original string, isNew bool) (DiffSession, error)
}

// DiffSession is one open diff view. Exactly one of Save or Revert ends it; Close after either
// is a no-op. A session whose host went away returns an error from every call.
type DiffSession interface {
	// Update replaces the proposed content (streaming). final is set on the last update.
	Update(ctx context.Context, proposed string, final bool) error
	// Save writes the proposal (as possibly edited by the user and formatted by the editor)
	// and returns the text that is now on disk.
	Save(ctx context.Context) (saved string, err error)
	// Revert discards the proposal, restoring the original (removing a new file and the
	// folders created for it).
	Revert(ctx context.Context) error
}

// CommandRequest asks the host to run a shell command.
type CommandRequest struct {
	Command string
	Cwd     string
	// Sandbox, when set, is the policy the command runs under (core/sandbox); the terminal
	// starts Cairn's sandbox launcher with the command instead of the command itself, and
	// shows the user the command. Nil: the user turned the sandbox off, or it cannot be set
	// up here and the user approved the command knowing that.
	Sandbox *sandbox.Policy
}

// Terminal runs commands.
type Terminal interface {
	// Run starts the command. Output arrives on the returned process until it exits; cancelling
	// ctx kills the process group (SIGTERM, SIGKILL after 5 s).
	Run(ctx context.Context, req CommandRequest) (Process, error)
}

// Process is a running command.
type Process interface {
	// Output streams combined output; it returns io.EOF after the process exited and every
	// byte was delivered.
	Output() io.Reader
	// Wait blocks until exit and returns the exit code (-1 if unknown).
	Wait(ctx context.Context) (int, error)
	// Kill stops the process group.
	Kill() error
}

// Releaser is implemented by a Process that may run where the user sees and uses it (the
// editor's terminal): when its task ends, Release hands it to the user instead of Kill. It
// reports whether it did: a command the user cannot see is not released, and is then stopped.
// Once released, its output no longer comes and its task holds nothing of it.
type Releaser interface {
	Process
	Release() (released bool, err error)
}

// GroupProcess is implemented by a Process that runs in a process group of its own (the
// direct host on Unix): Group returns the group's id, so its members can be found (the ports
// they listen on, whether any is left after a stop).
type GroupProcess interface {
	Process
	Group() int
}

// MemberProcess is implemented by a Process that can tell which of its processes run, also
// those that left its process group (`setsid server &`, a program that daemonizes itself):
// the direct host on Linux, outside the command sandbox. Members returns their ids (not
// zombies), none once nothing of the command runs; Kill stops them all.
type MemberProcess interface {
	GroupProcess
	Members() []int
}

// Diagnostic is one editor problem.
type Diagnostic struct {
	Path     string // absolute
	Line     int    // 1-based
	Severity string // error, warning, information, hint
	Message  string
	Source   string
}

// Editor is what only the editor knows.
type Editor interface {
	VisibleFiles(ctx context.Context) ([]string, error)
	OpenTabs(ctx context.Context) ([]string, error)
	Diagnostics(ctx context.Context, paths []string) ([]Diagnostic, error)
	OpenFile(ctx context.Context, abs string, line int) error
	ShowMessage(ctx context.Context, level, text string) error
	WorkspaceFolders(ctx context.Context) ([]string, error)
}

// Buffers is implemented by a host whose editor holds the files' current text, unsaved changes
// included (README "Use Cairn in Zed, JetBrains, Neovim": an ACP client that offers
// fs/read_text_file). Tools read text through HostText so the model sees what the user sees;
// every check on the path (ignore file, protected paths, approval) has happened before.
type Buffers interface {
	// ReadText returns abs's text as the editor has it. served is false when this host does
	// not serve files now; the caller then reads the disk.
	ReadText(ctx context.Context, abs string) (text string, served bool, err error)
}

// HostText reads abs's text through h when h serves files (Buffers); served is false when it
// does not, and the caller reads the disk as before.
func HostText(ctx context.Context, h Host, abs string) (text string, served bool, err error) {
	b, ok := h.(Buffers)
	if !ok {
		return "", false, nil
	}
	return b.ReadText(ctx, abs)
}
