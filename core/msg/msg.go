// Package msg is the UI message model of a task: the ordered list of say (non-blocking) and ask
// (blocking) messages a client renders, with typed payloads per kind. It is plain data: the
// server maps it to protobuf, the store persists it, the loop appends to it.
package msg

import "time"

// Type says whether a message waits for an answer.
type Type string

// Message types.
const (
	Say Type = "say"
	Ask Type = "ask"
)

// Kind is the message kind: a chat row's say or ask kind, with the same names as Cline's.
type Kind string

// Ask kinds.
const (
	AskFollowup               Kind = "followup"
	AskPlanModeRespond        Kind = "plan_mode_respond"
	AskCommand                Kind = "command"
	AskCommandOutput          Kind = "command_output"
	AskCompletionResult       Kind = "completion_result"
	AskTool                   Kind = "tool"
	AskAPIReqFailed           Kind = "api_req_failed"
	AskResumeTask             Kind = "resume_task"
	AskResumeCompletedTask    Kind = "resume_completed_task"
	AskMistakeLimitReached    Kind = "mistake_limit_reached"
	AskAutoApprovalMaxReached Kind = "auto_approval_max_req_reached"
	AskBrowserActionLaunch    Kind = "browser_action_launch"
	AskUseMCPServer           Kind = "use_mcp_server"
	AskNewTask                Kind = "new_task"
	AskCondense               Kind = "condense"
	AskReportBug              Kind = "report_bug"
	// AskTaskLimitReached: the task made as many requests, or spent as much, as its limits
	// allow; approving continues with the limit raised by its own size again.
	AskTaskLimitReached Kind = "task_limit_reached"
	// AskRepeatedToolCall: the model made the same tool call a third time in a row; it was
	// not run. Approving (or typing guidance) continues.
	AskRepeatedToolCall Kind = "repeated_tool_call"
)

// Say kinds.
const (
	SayTask                    Kind = "task"
	SayError                   Kind = "error"
	SayErrorRetry              Kind = "error_retry"
	SayAPIReqStarted           Kind = "api_req_started"
	SayText                    Kind = "text"
	SayReasoning               Kind = "reasoning"
	SayCompletionResult        Kind = "completion_result"
	SayUserFeedback            Kind = "user_feedback"
	SayUserFeedbackDiff        Kind = "user_feedback_diff"
	SayAPIReqRetried           Kind = "api_req_retried"
	SayCommand                 Kind = "command"
	SayCommandOutput           Kind = "command_output"
	SayTool                    Kind = "tool"
	SayShellIntegrationWarning Kind = "shell_integration_warning"
	SayBrowserActionLaunch     Kind = "browser_action_launch"
	SayBrowserAction           Kind = "browser_action"
	SayBrowserActionResult     Kind = "browser_action_result"
	SayMCPServerRequestStarted Kind = "mcp_server_request_started"
	SayMCPServerResponse       Kind = "mcp_server_response"
	SayMCPNotification         Kind = "mcp_notification"
	SayDiffError               Kind = "diff_error"
	SayDeletedAPIReqs          Kind = "deleted_api_reqs"
	SayIgnoreError             Kind = "ignore_error"
	SayCheckpointCreated       Kind = "checkpoint_created"
	SayLoadMCPDocumentation    Kind = "load_mcp_documentation"
	SayInfo                    Kind = "info"
	SayTaskProgress            Kind = "task_progress"
	// SayHook is a plain row about a user hook: it failed, was skipped, or blocked a tool.
	SayHook Kind = "hook"
	// SaySubagents is the row of a use_subagents call: its Text is a Subagents value as JSON,
	// replaced in place while the children run.
	SaySubagents Kind = "subagents"
)

// Message is one row of the chat.
type Message struct {
	// Index is the message's position in the task (0-based), stable for its lifetime.
	Index   int
	Time    time.Time
	Type    Type
	Kind    Kind
	Text    string
	Partial bool
	Images  []string // data URLs
	Files   []string
	Payload Payload // nil or one of the payload types below
	// Why is, on an approval ask, why it is asked (core/policy): the decision's trail, and
	// whether a managed rule decided, so that no "always" answer is offered.
	Why *Why `json:",omitempty"`
}

// Why is the reason an approval is asked, in the README's words: Lines[0] is the decision
// (`ask — on the deny list (…)`), the rest the other rules and checks that led to it.
type Why struct {
	Lines []string
	// Locked: a managed policy rule decided; an "always" grant could not loosen it.
	Locked bool `json:",omitempty"`
}

// Payload is a typed sub-payload of a message.
type Payload interface{ isPayload() }

// ToolOp names what a tool message shows (Cline's ClineSayTool.tool).
type ToolOp string

// Tool operations.
const (
	OpReadFile            ToolOp = "readFile"
	OpListFilesTopLevel   ToolOp = "listFilesTopLevel"
	OpListFilesRecursive  ToolOp = "listFilesRecursive"
	OpListCodeDefinitions ToolOp = "listCodeDefinitionNames"
	// OpNavigate looks a symbol up through the language servers (go_to_definition,
	// find_references); Content says what was asked.
	OpNavigate           ToolOp = "navigate"
	OpSearchFiles        ToolOp = "searchFiles"
	OpEditedExistingFile ToolOp = "editedExistingFile"
	OpNewFileCreated     ToolOp = "newFileCreated"
	OpWebFetch           ToolOp = "webFetch"
	OpSummarizeTask      ToolOp = "summarizeTask"
	// OpUseSubagents asks to start subagents; Content lists their prompts.
	OpUseSubagents ToolOp = "useSubagents"
	// OpSwitchMode asks to switch the task's mode; Path is the mode's slug, Content the
	// model's reason.
	OpSwitchMode ToolOp = "switchMode"
	// OpDelegate asks to start a subtask in a mode; Path is the mode's slug, Content the
	// assignment.
	OpDelegate ToolOp = "delegate"
)

// Tool is the payload of tool asks and says.
type Tool struct {
	Op          ToolOp
	Path        string // display path, workspace-relative
	Content     string // file content, listing, search output, …
	Diff        string // unified diff or SEARCH/REPLACE text
	Regex       string
	FilePattern string
	Outside     bool // the path is outside every workspace root
	// Protected says why the file is protected (core/protect), for an edit that always asks.
	Protected string `json:",omitempty"`
	// Outcome is how the approved or rejected action ended; empty while it is undecided and
	// for tools that do not report one (reads, listings).
	Outcome Outcome `json:",omitempty"`
}

// Outcome is how an edit shown in a tool row ended, recorded on the row once it is known.
type Outcome string

// Edit outcomes.
const (
	// OutcomeSaved: the proposal was saved as the model wrote it.
	OutcomeSaved Outcome = "saved"
	// OutcomeSavedWithChanges: saved after the user or the editor's formatter changed it.
	OutcomeSavedWithChanges Outcome = "saved_with_changes"
	// OutcomeRejected: the user rejected the proposal; the file was left alone.
	OutcomeRejected Outcome = "rejected"
	// OutcomeFailed: approved, but the save failed; the file was left alone.
	OutcomeFailed Outcome = "failed"
)

// Command is the payload of command asks/says.
type Command struct {
	Command          string
	RequiresApproval bool
	// Protected says why the command is asked: it writes a protected file (core/protect).
	Protected string `json:",omitempty"` // OutsideWrite is a file outside the workspace the command writes: asked unless edits
	// outside the workspace are auto-approved.
	OutsideWrite string `json:",omitempty"`
	// OutsideRead is a file or folder outside the workspace the command reads.
	OutsideRead string `json:",omitempty"`
	// Sandbox says how the command runs (README "Security"): "" in the sandbox's workspace
	// tier (the usual case for an asked command), or why it runs without one ("the sandbox
	// is off (--no-sandbox)", "no sandbox here: …": then every command is asked).
	Sandbox string `json:",omitempty"`
	// SandboxDenied, on a rerun's ask, names what the sandbox stopped and the access the
	// rerun would have.
	SandboxDenied string `json:",omitempty"`
}

// CommandOutput carries output of a running or finished command.
type CommandOutput struct {
	Output   string
	ExitCode *int
	Running  bool
	// ID is the command's number in its task, set on the row of a command that runs on in
	// the background, so the chat can stop it.
	ID int `json:",omitempty"`
}

// Followup is the payload of followup and plan_mode_respond asks.
type Followup struct {
	Question             string
	Options              []string
	Selected             string
	NeedsMoreExploration bool
}

// Completion is the payload of completion_result says and asks.
type Completion struct {
	Result  string
	Command string
	// Changes says whether the workspace differs from what it was at the previous completion
	// (core/task/checkpoints); nil on rows written before the daemon knew.
	Changes *bool `json:",omitempty"`
	// Check is how the task's "done when" command judged this completion (README, "Done
	// when"); nil when the task has none.
	Check *DoneCheck `json:",omitempty"`
}

// DoneCheck is one run of a task's "done when" command: a completion is accepted only when it
// exits 0.
type DoneCheck struct {
	Command  string
	ExitCode int
	Passed   bool
	// Output is the command's output, bounded as command output is for the model.
	Output string
}

// APIRequest is the payload of api_req_started: the request's cost once known.
type APIRequest struct {
	TokensIn     int64
	TokensOut    int64
	CacheWrites  int64
	CacheReads   int64
	Cost         float64
	CancelReason string // "", "user_cancelled", "streaming_failed"
	Error        string
	Done         bool
	// OutputLimit is set when the reply stopped at the model's output-token limit.
	OutputLimit bool
}

// Retry is the payload of error_retry and api_req_retried.
type Retry struct {
	Attempt    int
	MaxAttempt int
	DelaySec   int
	Error      string
}

// NewTask is the payload of new_task and condense asks.
type NewTask struct{ Context string }

// Browser is the payload of browser says/asks.
type Browser struct {
	Action     string
	URL        string
	Coordinate string
	Text       string
	Screenshot []byte // png
	Logs       string
	CurrentURL string
	// Mouse is the mouse position after the action, "x,y" in viewport pixels ("" before any
	// click).
	Mouse string
}

// MCP is the payload of use_mcp_server asks and MCP says.
type MCP struct {
	Server    string
	Tool      string
	URI       string
	Arguments string
	Response  string
}

// Checkpoint is the payload of checkpoint_created.
type Checkpoint struct {
	Hash string
	// APIIndex is the length of the API history that goes with the row: the conversation up to
	// and including the request that follows the snapshot (0: unknown, rows written before it
	// was recorded).
	APIIndex int
}

// Progress is the payload of task_progress: the focus-chain checklist.
type Progress struct{ Markdown string }

func (*Tool) isPayload()          {}
func (*Command) isPayload()       {}
func (*CommandOutput) isPayload() {}
func (*Followup) isPayload()      {}
func (*Completion) isPayload()    {}
func (*APIRequest) isPayload()    {}
func (*Retry) isPayload()         {}
func (*NewTask) isPayload()       {}
func (*Browser) isPayload()       {}
func (*MCP) isPayload()           {}
func (*Checkpoint) isPayload()    {}
func (*Progress) isPayload()      {}

// Subagents is what the row of a use_subagents call shows, one entry per child, in the order
// the model gave the prompts. It travels as the row's text, in JSON.
type Subagents struct {
	Children []Subagent `json:"children"`
}

// SubagentStatus is where a child is.
type SubagentStatus string

// Child statuses.
const (
	SubagentRunning SubagentStatus = "running"
	SubagentDone    SubagentStatus = "done"
	SubagentFailed  SubagentStatus = "failed"
)

// Subagent is one child of a use_subagents call, or the subtask of a delegate call.
type Subagent struct {
	Prompt string `json:"prompt"`
	// Mode is a delegated subtask's mode ("" for a use_subagents child).
	Mode     string         `json:"mode,omitempty"`
	Status   SubagentStatus `json:"status"`
	Requests int            `json:"requests"`
	Cost     float64        `json:"cost"`
	// LastTool is the tool the child used last, with its main argument ("read_file src/a.go").
	LastTool string `json:"lastTool,omitempty"`
	// Error says why a failed child failed.
	Error string `json:"error,omitempty"`
	// Transcript is a delegated subtask's chat once it ended, so the user can open it.
	Transcript []SubagentRow `json:"transcript,omitempty"`
}

// SubagentRow is one row of a subtask's chat as the parent's row keeps it.
type SubagentRow struct {
	Type Type   `json:"type"`
	Kind Kind   `json:"kind"`
	Text string `json:"text"`
}
