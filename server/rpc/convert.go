package rpc

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/task"
)

var askKinds = lazy.Value[map[msg.Kind]cairnv1.AskKind]{New: func() map[msg.Kind]cairnv1.AskKind {
	return map[msg.Kind]cairnv1.AskKind{
		msg.AskFollowup: cairnv1.AskKind_ASK_KIND_FOLLOWUP, msg.AskPlanModeRespond: cairnv1.AskKind_ASK_KIND_PLAN_MODE_RESPOND,
		msg.AskCommand: cairnv1.AskKind_ASK_KIND_COMMAND, msg.AskCommandOutput: cairnv1.AskKind_ASK_KIND_COMMAND_OUTPUT,
		msg.AskCompletionResult: cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT, msg.AskTool: cairnv1.AskKind_ASK_KIND_TOOL,
		msg.AskAPIReqFailed: cairnv1.AskKind_ASK_KIND_API_REQ_FAILED, msg.AskResumeTask: cairnv1.AskKind_ASK_KIND_RESUME_TASK,
		msg.AskResumeCompletedTask: cairnv1.AskKind_ASK_KIND_RESUME_COMPLETED_TASK, msg.AskMistakeLimitReached: cairnv1.AskKind_ASK_KIND_MISTAKE_LIMIT_REACHED,
		msg.AskAutoApprovalMaxReached: cairnv1.AskKind_ASK_KIND_AUTO_APPROVAL_MAX_REQ_REACHED, msg.AskBrowserActionLaunch: cairnv1.AskKind_ASK_KIND_BROWSER_ACTION_LAUNCH,
		msg.AskUseMCPServer: cairnv1.AskKind_ASK_KIND_USE_MCP_SERVER, msg.AskNewTask: cairnv1.AskKind_ASK_KIND_NEW_TASK,
		msg.AskCondense: cairnv1.AskKind_ASK_KIND_CONDENSE, msg.AskReportBug: cairnv1.AskKind_ASK_KIND_REPORT_BUG,
		msg.AskTaskLimitReached: cairnv1.AskKind_ASK_KIND_TASK_LIMIT_REACHED, msg.AskRepeatedToolCall: cairnv1.AskKind_ASK_KIND_REPEATED_TOOL_CALL,
	}
}}

var sayKinds = lazy.Value[map[msg.Kind]cairnv1.SayKind]{New: func() map[msg.Kind]cairnv1.SayKind {
	return map[msg.Kind]cairnv1.SayKind{
		msg.SayTask: cairnv1.SayKind_SAY_KIND_TASK, msg.SayError: cairnv1.SayKind_SAY_KIND_ERROR, msg.SayErrorRetry: cairnv1.SayKind_SAY_KIND_ERROR_RETRY,
		msg.SayAPIReqStarted: cairnv1.SayKind_SAY_KIND_API_REQ_STARTED, msg.SayText: cairnv1.SayKind_SAY_KIND_TEXT,
		msg.SayReasoning: cairnv1.SayKind_SAY_KIND_REASONING, msg.SayCompletionResult: cairnv1.SayKind_SAY_KIND_COMPLETION_RESULT,
		msg.SayUserFeedback: cairnv1.SayKind_SAY_KIND_USER_FEEDBACK, msg.SayUserFeedbackDiff: cairnv1.SayKind_SAY_KIND_USER_FEEDBACK_DIFF,
		msg.SayAPIReqRetried: cairnv1.SayKind_SAY_KIND_API_REQ_RETRIED, msg.SayCommand: cairnv1.SayKind_SAY_KIND_COMMAND,
		msg.SayCommandOutput: cairnv1.SayKind_SAY_KIND_COMMAND_OUTPUT, msg.SayTool: cairnv1.SayKind_SAY_KIND_TOOL,
		msg.SayShellIntegrationWarning: cairnv1.SayKind_SAY_KIND_SHELL_INTEGRATION_WARNING, msg.SayBrowserActionLaunch: cairnv1.SayKind_SAY_KIND_BROWSER_ACTION_LAUNCH,
		msg.SayBrowserAction: cairnv1.SayKind_SAY_KIND_BROWSER_ACTION, msg.SayBrowserActionResult: cairnv1.SayKind_SAY_KIND_BROWSER_ACTION_RESULT,
		msg.SayMCPServerRequestStarted: cairnv1.SayKind_SAY_KIND_MCP_SERVER_REQUEST_STARTED, msg.SayMCPServerResponse: cairnv1.SayKind_SAY_KIND_MCP_SERVER_RESPONSE,
		msg.SayMCPNotification: cairnv1.SayKind_SAY_KIND_MCP_NOTIFICATION, msg.SayDiffError: cairnv1.SayKind_SAY_KIND_DIFF_ERROR,
		msg.SayDeletedAPIReqs: cairnv1.SayKind_SAY_KIND_DELETED_API_REQS, msg.SayIgnoreError: cairnv1.SayKind_SAY_KIND_IGNORE_ERROR,
		msg.SayCheckpointCreated: cairnv1.SayKind_SAY_KIND_CHECKPOINT_CREATED, msg.SayLoadMCPDocumentation: cairnv1.SayKind_SAY_KIND_LOAD_MCP_DOCUMENTATION,
		msg.SayInfo: cairnv1.SayKind_SAY_KIND_INFO, msg.SayTaskProgress: cairnv1.SayKind_SAY_KIND_TASK_PROGRESS,
		msg.SayHook:      cairnv1.SayKind_SAY_KIND_HOOK,
		msg.SaySubagents: cairnv1.SayKind_SAY_KIND_SUBAGENTS,
	}
}}

var toolOps = lazy.Value[map[msg.ToolOp]cairnv1.ToolOperation]{New: func() map[msg.ToolOp]cairnv1.ToolOperation {
	return map[msg.ToolOp]cairnv1.ToolOperation{
		msg.OpReadFile: cairnv1.ToolOperation_TOOL_OPERATION_READ_FILE, msg.OpListFilesTopLevel: cairnv1.ToolOperation_TOOL_OPERATION_LIST_FILES_TOP_LEVEL,
		msg.OpListFilesRecursive: cairnv1.ToolOperation_TOOL_OPERATION_LIST_FILES_RECURSIVE, msg.OpListCodeDefinitions: cairnv1.ToolOperation_TOOL_OPERATION_LIST_CODE_DEFINITION_NAMES,
		msg.OpNavigate:    cairnv1.ToolOperation_TOOL_OPERATION_NAVIGATE,
		msg.OpSearchFiles: cairnv1.ToolOperation_TOOL_OPERATION_SEARCH_FILES, msg.OpEditedExistingFile: cairnv1.ToolOperation_TOOL_OPERATION_EDITED_EXISTING_FILE,
		msg.OpNewFileCreated: cairnv1.ToolOperation_TOOL_OPERATION_NEW_FILE_CREATED, msg.OpWebFetch: cairnv1.ToolOperation_TOOL_OPERATION_WEB_FETCH,
		msg.OpSummarizeTask: cairnv1.ToolOperation_TOOL_OPERATION_SUMMARIZE_TASK, msg.OpUseSubagents: cairnv1.ToolOperation_TOOL_OPERATION_USE_SUBAGENTS,
		msg.OpSwitchMode: cairnv1.ToolOperation_TOOL_OPERATION_SWITCH_MODE, msg.OpDelegate: cairnv1.ToolOperation_TOOL_OPERATION_DELEGATE,
	}
}}

var toolOutcomes = lazy.Value[map[msg.Outcome]cairnv1.ToolOutcome]{New: func() map[msg.Outcome]cairnv1.ToolOutcome {
	return map[msg.Outcome]cairnv1.ToolOutcome{
		msg.OutcomeSaved: cairnv1.ToolOutcome_TOOL_OUTCOME_SAVED, msg.OutcomeSavedWithChanges: cairnv1.ToolOutcome_TOOL_OUTCOME_SAVED_WITH_CHANGES,
		msg.OutcomeRejected: cairnv1.ToolOutcome_TOOL_OUTCOME_REJECTED, msg.OutcomeFailed: cairnv1.ToolOutcome_TOOL_OUTCOME_FAILED,
	}
}}

// toMessage maps a core message to the wire.
func toMessage(m msg.Message) *cairnv1.Message {
	out := &cairnv1.Message{Index: int32(m.Index), Time: timestamppb.New(m.Time), Text: clean(m.Text), Partial: m.Partial,
		Images: cleanAll(m.Images), Files: cleanAll(m.Files)}
	if m.Type == msg.Ask {
		out.Kind = &cairnv1.Message_Ask{Ask: askKinds.Get()[m.Kind]}
		if m.Why != nil {
			out.Why = &cairnv1.ApprovalWhy{Lines: cleanAll(m.Why.Lines), Locked: m.Why.Locked}
		}
	} else {
		out.Kind = &cairnv1.Message_Say{Say: sayKinds.Get()[m.Kind]}
	}
	switch p := m.Payload.(type) {
	case *msg.Tool:
		out.Payload = &cairnv1.Message_Tool{Tool: &cairnv1.ToolPayload{Operation: toolOps.Get()[p.Op], Path: clean(p.Path), Content: clean(p.Content),
			Diff: clean(p.Diff), Regex: clean(p.Regex), FilePattern: clean(p.FilePattern), OutsideWorkspace: p.Outside,
			ProtectedReason: clean(p.Protected), Outcome: toolOutcomes.Get()[p.Outcome]}}
	case *msg.Command:
		out.Payload = &cairnv1.Message_Command{Command: &cairnv1.CommandPayload{Command: clean(p.Command), RequiresApproval: p.RequiresApproval,
			ProtectedReason: clean(p.Protected), OutsideWrite: clean(p.OutsideWrite),
			OutsideRead: clean(p.OutsideRead), Sandbox: clean(p.Sandbox), SandboxDenied: clean(p.SandboxDenied)}}
	case *msg.CommandOutput:
		co := &cairnv1.CommandOutputPayload{Output: clean(p.Output), Running: p.Running, Id: int32(min(p.ID, math.MaxInt32))}
		if p.ExitCode != nil {
			c := int32(*p.ExitCode)
			co.ExitCode = &c
		}
		out.Payload = &cairnv1.Message_CommandOutput{CommandOutput: co}
	case *msg.Followup:
		out.Payload = &cairnv1.Message_Followup{Followup: &cairnv1.FollowupPayload{Question: clean(p.Question), Options: cleanAll(p.Options),
			Selected: clean(p.Selected), NeedsMoreExploration: p.NeedsMoreExploration}}
	case *msg.Completion:
		c := &cairnv1.CompletionPayload{Result: clean(p.Result), Command: clean(p.Command), Changes: p.Changes}
		if k := p.Check; k != nil {
			c.Check = &cairnv1.DoneCheckPayload{Command: clean(k.Command), ExitCode: int32(max(min(k.ExitCode, math.MaxInt32), math.MinInt32)),
				Passed: k.Passed, Output: clean(k.Output)}
		}
		out.Payload = &cairnv1.Message_Completion{Completion: c}
	case *msg.APIRequest:
		out.Payload = &cairnv1.Message_ApiRequest{ApiRequest: &cairnv1.ApiRequestPayload{TokensIn: p.TokensIn, TokensOut: p.TokensOut,
			CacheWrites: p.CacheWrites, CacheReads: p.CacheReads, Cost: p.Cost, CancelReason: clean(p.CancelReason), Error: clean(p.Error), Done: p.Done,
			OutputLimit: p.OutputLimit}}
	case *msg.Retry:
		out.Payload = &cairnv1.Message_Retry{Retry: &cairnv1.RetryPayload{Attempt: int32(p.Attempt), MaxAttempts: int32(p.MaxAttempt),
			DelaySeconds: int32(p.DelaySec), Error: clean(p.Error)}}
	case *msg.NewTask:
		out.Payload = &cairnv1.Message_NewTask{NewTask: &cairnv1.NewTaskPayload{Context: clean(p.Context)}}
	case *msg.Browser:
		out.Payload = &cairnv1.Message_Browser{Browser: &cairnv1.BrowserPayload{Action: clean(p.Action), Url: clean(p.URL), Coordinate: clean(p.Coordinate),
			Text: clean(p.Text), ScreenshotPng: p.Screenshot, Logs: clean(p.Logs), CurrentUrl: clean(p.CurrentURL),
			MousePosition: clean(p.Mouse)}}
	case *msg.MCP:
		out.Payload = &cairnv1.Message_Mcp{Mcp: &cairnv1.McpPayload{ServerName: clean(p.Server), ToolName: clean(p.Tool), Uri: clean(p.URI),
			Arguments: clean(p.Arguments), Response: clean(p.Response)}}
	case *msg.Checkpoint:
		out.Payload = &cairnv1.Message_Checkpoint{Checkpoint: &cairnv1.CheckpointPayload{Hash: clean(p.Hash)}}
	case *msg.Progress:
		out.Payload = &cairnv1.Message_Progress{Progress: &cairnv1.ProgressPayload{Markdown: clean(p.Markdown)}}
	}
	return out
}

var statuses = lazy.Value[map[task.Status]cairnv1.TaskStatus]{New: func() map[task.Status]cairnv1.TaskStatus {
	return map[task.Status]cairnv1.TaskStatus{
		task.StatusIdle: cairnv1.TaskStatus_TASK_STATUS_IDLE, task.StatusRunning: cairnv1.TaskStatus_TASK_STATUS_RUNNING,
		task.StatusWaiting: cairnv1.TaskStatus_TASK_STATUS_WAITING, task.StatusCompleted: cairnv1.TaskStatus_TASK_STATUS_COMPLETED,
		task.StatusCancelled: cairnv1.TaskStatus_TASK_STATUS_CANCELLED, task.StatusFailed: cairnv1.TaskStatus_TASK_STATUS_FAILED,
	}
}}

func toMode(m string) cairnv1.Mode {
	if m == task.ModePlan {
		return cairnv1.Mode_MODE_PLAN
	}
	return cairnv1.Mode_MODE_ACT
}

// modeOf is a request's mode: its slug when it names one, else its ACT or PLAN.
func modeOf(slug string, m cairnv1.Mode) string {
	if slug != "" {
		return slug
	}
	return fromMode(m)
}

func fromMode(m cairnv1.Mode) string {
	if m == cairnv1.Mode_MODE_PLAN {
		return task.ModePlan
	}
	return task.ModeAct
}

func toState(s task.State) *cairnv1.TaskState {
	return &cairnv1.TaskState{TaskId: clean(s.ID), Status: statuses.Get()[s.Status], Mode: toMode(s.Mode), ModeSlug: clean(s.Mode), Title: clean(s.Title),
		TokensIn: s.TokensIn, TokensOut: s.TokensOut, CacheReads: s.CacheReads, CacheWrites: s.CacheWrites, Cost: s.Cost,
		ContextTokens: s.ContextTokens, ContextWindow: s.ContextWindow, FocusChain: clean(s.FocusChain),
		OpenAskIndex: int32(s.OpenAsk), Model: clean(s.Model), MessageCount: int32(s.MessageCount),
		Requests: int32(s.Requests), Limits: toLimits(s.Limits), PricesKnown: s.PricesKnown, Queued: toQueued(s.Queued),
		AutoApprove: toAutoApprove(s.AutoApprove), OwnSettings: s.OwnSettings, Included: s.Included, ModelLabel: clean(s.ModelLabel),
		Sandbox: toSandboxStatus(s.Sandbox)}
}

// toSandboxStatus says how commands run (README "Security").
func toSandboxStatus(s task.Sandbox) *cairnv1.SandboxStatus {
	return &cairnv1.SandboxStatus{Available: s.Available, Mechanism: clean(s.Mechanism), Reason: clean(s.Reason),
		Off: s.Off, Network: s.Network, OffBy: clean(s.OffBy)}
}

func toQueued(qs []task.Queued) []*cairnv1.QueuedMessage {
	out := make([]*cairnv1.QueuedMessage, 0, len(qs))
	for _, q := range qs {
		out = append(out, &cairnv1.QueuedMessage{Id: q.ID, Text: clean(q.Text), ImageCount: int32(len(q.Images))})
	}
	return out
}

func toLimits(l config.TaskLimits) *cairnv1.TaskLimits {
	return &cairnv1.TaskLimits{MaxRequests: int32(l.MaxRequests), MaxCost: l.MaxCost}
}

func fromLimits(l *cairnv1.TaskLimits) config.TaskLimits {
	return config.TaskLimits{MaxRequests: int(l.GetMaxRequests()), MaxCost: l.GetMaxCost()}
}

func toSummary(m store.Meta) *cairnv1.TaskSummary {
	ws := ""
	if len(m.Workspace) > 0 {
		ws = m.Workspace[0]
	}
	return &cairnv1.TaskSummary{TaskId: clean(m.ID), Title: clean(m.Title), WorkspaceRoot: clean(ws), CreatedUnixMs: m.Created.UnixMilli(),
		UpdatedUnixMs: m.Updated.UnixMilli(), TokensIn: m.TokensIn, TokensOut: m.TokensOut, CacheWrites: m.CacheWrites,
		CacheReads: m.CacheReads, Cost: m.Cost, SizeBytes: m.SizeBytes, Favorite: m.Favorite, Model: clean(m.Model),
		PricesKnown: pricesKnown(m), Included: m.Included}
}

// toSettings maps settings to the wire, never including the API key.
func toSettings(s config.Settings) *cairnv1.Settings {
	a := s.AutoApprove
	return &cairnv1.Settings{
		Api: &cairnv1.ApiConfig{BaseUrl: clean(s.API.BaseURL), ApiKeySet: s.API.APIKey != "", Model: clean(s.API.Model),
			PlanModel: clean(s.API.PlanModel), Headers: cleanMap(s.API.Headers), RequestIdleTimeoutSeconds: int32(s.API.RequestIdleTimeout), ContextWindow: s.API.ContextWindow,
			MaxOutputTokens: s.API.MaxOutputTokens, InputPrice: s.API.InputPrice, OutputPrice: s.API.OutputPrice, SupportsImages: s.API.SupportsImages,
			ToolFormat: clean(s.API.ToolFormat), ReasoningEffort: clean(s.API.ReasoningEffort),
			Preset: clean(s.API.Preset), AzureDeployment: clean(s.API.AzureDeployment), AzureApiVersion: clean(s.API.AzureAPIVersion)},
		AutoApprove: toAutoApprove(a), MistakeLimit: int32(s.MistakeLimit), OutputLineLimit: int32(s.OutputLineLimit),
		FocusChainEnabled: s.FocusChainEnabled, FocusChainInterval: int32(s.FocusChainInterval), CheckpointsEnabled: s.CheckpointsEnabled,
		PreferredLanguage: clean(s.PreferredLanguage), CustomInstructions: clean(s.CustomInstructions), FullEditResults: s.FullEditResults,
		AutoCondense: s.AutoCondense, AutoCondensePercent: int32(s.AutoCondensePercent), BrowserEnabled: s.BrowserEnabled,
		ReadFileLineLimit: int32(s.ReadFileLineLimit), RuleToggles: cleanKeys(s.RuleToggles), TaskLimits: toLimits(s.TaskLimits),
		BrowserViewport: clean(s.BrowserViewport), BrowserRemoteUrl: clean(s.BrowserRemoteURL), BrowserPath: clean(s.BrowserPath),
		WorktreeCarryChanges: s.WorktreeCarryChanges, WorktreeMergeMode: clean(s.WorktreeMergeMode),
		CommandWaitSeconds: proto.Int32(int32(min(s.CommandWaitSeconds, math.MaxInt32))),
		Sandbox: &cairnv1.SandboxSettings{Disabled: s.SandboxOff, Network: s.SandboxNetwork,
			MaskedPaths: cleanAll(s.SandboxMaskedPaths)},
	}
}

func toAutoApprove(a config.AutoApprove) *cairnv1.AutoApprove {
	return &cairnv1.AutoApprove{Enabled: a.Enabled, ReadFiles: a.ReadFiles, ReadFilesOutside: a.ReadFilesOutside,
		EditFiles: a.EditFiles, EditFilesOutside: a.EditFilesOutside, SafeCommands: a.SafeCommands, AllCommands: a.AllCommands,
		Browser: a.Browser, Mcp: a.MCP, MaxRequests: int32(a.MaxRequests), Yolo: a.YOLO, CommandDenyList: cleanAll(a.DenyList),
		CommandAllowList: cleanAll(a.AllowList), Protected: a.Protected, LocalNetwork: a.LocalNetwork}
}

func fromAutoApprove(a *cairnv1.AutoApprove) config.AutoApprove {
	return config.AutoApprove{Enabled: a.GetEnabled(), ReadFiles: a.GetReadFiles(), ReadFilesOutside: a.GetReadFilesOutside(),
		EditFiles: a.GetEditFiles(), EditFilesOutside: a.GetEditFilesOutside(), SafeCommands: a.GetSafeCommands(),
		AllCommands: a.GetAllCommands(), Browser: a.GetBrowser(), MCP: a.GetMcp(), MaxRequests: int(a.GetMaxRequests()),
		YOLO: a.GetYolo(), DenyList: a.GetCommandDenyList(), AllowList: a.GetCommandAllowList(), Protected: a.GetProtected(),
		LocalNetwork: a.GetLocalNetwork()}
}

// fromSettings maps wire settings over old; an empty API key keeps the old one.
func fromSettings(in *cairnv1.Settings, old config.Settings) config.Settings {
	s := old
	if api := in.GetApi(); api != nil {
		key := old.API.APIKey
		if api.GetApiKey() != "" {
			key = api.GetApiKey()
		}
		s.API = config.API{BaseURL: api.GetBaseUrl(), APIKey: key, Model: api.GetModel(), PlanModel: api.GetPlanModel(),
			Headers: api.GetHeaders(), RequestIdleTimeout: int(api.GetRequestIdleTimeoutSeconds()), ContextWindow: api.GetContextWindow(),
			MaxOutputTokens: api.GetMaxOutputTokens(), InputPrice: api.GetInputPrice(), OutputPrice: api.GetOutputPrice(),
			SupportsImages: api.GetSupportsImages(), ToolFormat: api.GetToolFormat(), ReasoningEffort: api.GetReasoningEffort(),
			Preset: api.GetPreset(), AzureDeployment: api.GetAzureDeployment(),
			AzureAPIVersion: api.GetAzureApiVersion()}
	}
	if in.GetAutoApprove() != nil {
		s.AutoApprove = fromAutoApprove(in.GetAutoApprove())
		if len(s.AutoApprove.DenyList) == 0 {
			s.AutoApprove.DenyList = old.AutoApprove.DenyList
		}
	}
	pos := func(v int32, def int) int {
		if v > 0 {
			return int(v)
		}
		return def
	}
	s.MistakeLimit = pos(in.GetMistakeLimit(), old.MistakeLimit)
	s.OutputLineLimit = pos(in.GetOutputLineLimit(), old.OutputLineLimit)
	s.ReadFileLineLimit = pos(in.GetReadFileLineLimit(), old.ReadFileLineLimit)
	s.FocusChainInterval = pos(in.GetFocusChainInterval(), old.FocusChainInterval)
	s.AutoCondensePercent = pos(in.GetAutoCondensePercent(), old.AutoCondensePercent)
	s.FocusChainEnabled = in.GetFocusChainEnabled()
	s.CheckpointsEnabled = in.GetCheckpointsEnabled()
	s.PreferredLanguage = in.GetPreferredLanguage()
	s.CustomInstructions = in.GetCustomInstructions()
	s.FullEditResults = in.GetFullEditResults()
	s.AutoCondense = in.GetAutoCondense()
	s.BrowserEnabled = in.GetBrowserEnabled()
	s.BrowserViewport = in.GetBrowserViewport()
	s.BrowserRemoteURL = in.GetBrowserRemoteUrl()
	s.BrowserPath = in.GetBrowserPath()
	s.WorktreeCarryChanges = in.GetWorktreeCarryChanges()
	s.WorktreeMergeMode = in.GetWorktreeMergeMode()
	if in.CommandWaitSeconds != nil && in.GetCommandWaitSeconds() >= 0 {
		s.CommandWaitSeconds = int(in.GetCommandWaitSeconds())
	}
	if sb := in.GetSandbox(); sb != nil {
		s.SandboxOff = sb.GetDisabled()
		s.SandboxNetwork = sb.GetNetwork()
		s.SandboxMaskedPaths = maskedPaths(sb.GetMaskedPaths())
	}
	if in.GetRuleToggles() != nil {
		s.RuleToggles = in.GetRuleToggles()
	}
	if in.GetTaskLimits() != nil {
		s.TaskLimits = fromLimits(in.GetTaskLimits())
	}
	return s
}

// maskedPaths are the form's lines as sandboxMaskedPaths: trimmed, blank lines dropped (nil
// when none, as a settings file without the key reads).
func maskedPaths(in []string) []string {
	var out []string
	for _, p := range in {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// Protobuf strings must be valid UTF-8: grpc-go refuses to marshal a message holding anything
// else ("string field contains invalid UTF-8"), and on a stream that error ends the stream, so
// one Latin-1 file name or one chunk of binary command output would end a client's run. Every
// string put into a wire message therefore passes through clean, which replaces each run of
// invalid bytes with U+FFFD. That is right for display; for paths it is lossy, and the way
// back is in core/workspace: Resolve maps a path whose U+FFFD stand for invalid bytes to the
// one file on disk whose name reads the same (see workspace.Resolve).
const replacement = "\uFFFD"

// clean returns s, or s with its invalid UTF-8 replaced. Valid strings are not copied.
func clean(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, replacement)
}

// cleanAll cleans every element, copying the slice only when one needs it.
func cleanAll(ss []string) []string {
	for i, s := range ss {
		if !utf8.ValidString(s) {
			out := slices.Clone(ss)
			for j := i; j < len(out); j++ {
				out[j] = clean(out[j])
			}
			return out
		}
	}
	return ss
}

// cleanMap cleans keys and values; cleanKeys cleans keys. Both copy only when needed. Two keys
// that differ only in their invalid bytes become one; the last one wins.
func cleanMap(m map[string]string) map[string]string {
	for k, v := range m {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			out := make(map[string]string, len(m))
			for k, v := range m {
				out[clean(k)] = clean(v)
			}
			return out
		}
	}
	return m
}

func cleanKeys[V any](m map[string]V) map[string]V {
	for k := range m {
		if !utf8.ValidString(k) {
			out := make(map[string]V, len(m))
			for k, v := range m {
				out[clean(k)] = v
			}
			return out
		}
	}
	return m
}
