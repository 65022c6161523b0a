package config

import (
	"fmt"
	"math"
	"strings"
)

// Overrides are one task's own settings, given when it starts (the flags of `cairn run
// --connect`, README "Running tasks from a shell"). They govern that task only, are never
// written into the shared settings, and are saved with the task so that a resumed task keeps
// them, except the key: it lives in the daemon's memory only. Empty fields keep the shared
// value.
type Overrides struct {
	BaseURL string `json:"baseUrl,omitempty"`
	// APIKey is never saved (json "-").
	APIKey string `json:"-"`
	Model  string `json:"model,omitempty"`
	// PlanModel is the model of PLAN mode the user picked for the task (when the shared
	// settings have a PLAN model of their own).
	PlanModel       string `json:"planModel,omitempty"`
	ToolFormat      string `json:"toolFormat,omitempty"`
	ReasoningEffort string `json:"reasoningEffort,omitempty"`
	// AutoApprove, when set, is the task's whole approval policy; the shared policy no
	// longer applies to the task.
	AutoApprove *AutoApprove `json:"autoApprove,omitempty"`
	MaxRequests int          `json:"maxRequests,omitempty"`
	MaxCost     float64      `json:"maxCost,omitempty"`
	// Browser, when set, turns the browser on or off for the task.
	Browser *bool `json:"browser,omitempty"`
	// CommandWait, when set, is the task's commandWaitSeconds (0: no limit).
	CommandWait *int `json:"commandWaitSeconds,omitempty"`
	// NoSandbox, when set, turns the command sandbox off (true) or on (false) for the task:
	// `cairn run --connect --no-sandbox` (README "Security"). Only the user sets it, never the
	// model.
	NoSandbox *bool `json:"noSandbox,omitempty"`
	// Network, when set, is the task's sandboxNetwork: whether auto-approved commands may open
	// network connections (`cairn run --connect --network`).
	Network *bool `json:"sandboxNetwork,omitempty"`
	// MCPServers is a document of MCP servers in mcp_settings.json's shape
	// (`{"mcpServers": {…}}`) that join the user's for this task only: an ACP session's
	// servers (README "Use Cairn in Zed, JetBrains, Neovim"). Like the key it is never saved
	// (its env and headers may hold secrets): a resume gives it again.
	MCPServers []byte `json:"-"`
	// DoneWhen is the task's "done when" command (`cairn run --until`, README "Done when"):
	// a completion is accepted only when it exits 0. Saved with the task, so a resumed task
	// is held to it too.
	DoneWhen string `json:"doneWhen,omitempty"`
}

// IsZero reports whether the overrides change nothing.
func (o Overrides) IsZero() bool {
	return o.BaseURL == "" && o.APIKey == "" && o.Model == "" && o.PlanModel == "" && o.ToolFormat == "" &&
		o.ReasoningEffort == "" && o.AutoApprove == nil && o.MaxRequests == 0 && o.MaxCost == 0 &&
		o.Browser == nil && o.CommandWait == nil && o.NoSandbox == nil && o.Network == nil && len(o.MCPServers) == 0 &&
		o.DoneWhen == ""
}

// With returns o with top's fields on top: a field top sets replaces o's.
func (o Overrides) With(top Overrides) Overrides {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&o.BaseURL, top.BaseURL)
	set(&o.APIKey, top.APIKey)
	set(&o.Model, top.Model)
	set(&o.PlanModel, top.PlanModel)
	set(&o.ToolFormat, top.ToolFormat)
	set(&o.ReasoningEffort, top.ReasoningEffort)
	set(&o.DoneWhen, top.DoneWhen)
	if top.AutoApprove != nil {
		o.AutoApprove = top.AutoApprove
	}
	if top.MaxRequests > 0 {
		o.MaxRequests = top.MaxRequests
	}
	if top.MaxCost > 0 {
		o.MaxCost = top.MaxCost
	}
	if top.Browser != nil {
		o.Browser = top.Browser
	}
	if top.CommandWait != nil {
		o.CommandWait = top.CommandWait
	}
	if top.NoSandbox != nil {
		o.NoSandbox = top.NoSandbox
	}
	if top.Network != nil {
		o.Network = top.Network
	}
	if len(top.MCPServers) > 0 {
		o.MCPServers = top.MCPServers
	}
	return o
}

// Check says what is wrong with the overrides, in the words of the flags that set them.
func (o Overrides) Check() error {
	switch o.ToolFormat {
	case "", "native", "xml": // core/llm's ToolFormat values
	default:
		return fmt.Errorf("--tool-format must be native or xml, not %q", o.ToolFormat)
	}
	switch o.ReasoningEffort {
	case "", "low", "medium", "high":
	default:
		return fmt.Errorf("--reasoning-effort must be low, medium or high, not %q", o.ReasoningEffort)
	}
	switch {
	case o.MaxRequests < 0:
		return fmt.Errorf("--max-requests must be positive")
	case o.MaxCost < 0 || math.IsNaN(o.MaxCost) || math.IsInf(o.MaxCost, 0):
		return fmt.Errorf("--max-cost must be a positive amount of USD")
	case o.CommandWait != nil && *o.CommandWait < 0:
		return fmt.Errorf("--command-wait takes a whole number of seconds, 0 or more")
	}
	return nil
}

// Apply returns shared with the overrides on top. An endpoint other than the shared one never
// gets the shared key, headers or provider preset: without a key of its own it gets none.
// The shared key stays a secret of the task's children all the same.
func (o Overrides) Apply(shared Settings) Settings {
	s := shared
	if o.BaseURL != "" && o.BaseURL != shared.API.BaseURL {
		s.API.BaseURL = o.BaseURL
		s.API.APIKey = ""
		s.API.Headers = nil
		s.API.Preset = ""
		s.API.AzureDeployment, s.API.AzureAPIVersion = "", ""
		s.otherSecrets = append(s.otherSecrets, shared.Secrets().Values...)
	}
	if o.APIKey != "" {
		if s.API.APIKey != "" && s.API.APIKey != o.APIKey {
			s.otherSecrets = append(s.otherSecrets, s.API.APIKey)
		}
		s.API.APIKey = o.APIKey
	}
	if o.Model != "" {
		s.API.Model = o.Model
	}
	if o.PlanModel != "" {
		s.API.PlanModel = o.PlanModel
	}
	if o.ToolFormat != "" {
		s.API.ToolFormat = o.ToolFormat
	}
	if o.ReasoningEffort != "" {
		s.API.ReasoningEffort = o.ReasoningEffort
	}
	if s.API.BaseURL == "" && s.API.APIKey != "" {
		s.API.BaseURL = "https://api.openai.com/v1"
	}
	if o.AutoApprove != nil {
		s.AutoApprove = *o.AutoApprove
		if len(s.AutoApprove.DenyList) == 0 {
			s.AutoApprove.DenyList = shared.AutoApprove.DenyList
		}
	}
	if o.MaxRequests > 0 {
		s.TaskLimits.MaxRequests = o.MaxRequests
	}
	if o.MaxCost > 0 {
		s.TaskLimits.MaxCost = o.MaxCost
	}
	if o.Browser != nil {
		s.BrowserEnabled = *o.Browser
	}
	if o.CommandWait != nil {
		s.CommandWaitSeconds = *o.CommandWait
	}
	if o.NoSandbox != nil {
		s.SandboxOff = *o.NoSandbox
	}
	if o.Network != nil {
		s.SandboxNetwork = *o.Network
	}
	return s
}

// ApprovalCategories are the names `--auto-approve` takes, in the order its help lists them.
var ApprovalCategories = []string{"read", "edit", "command", "browser", "local", "mcp", "protected", "outside"}

// WithApprovals returns p with the named categories (ApprovalCategories) approved as well,
// and everything approved when yolo is set (the deny list still asks).
func (p AutoApprove) WithApprovals(categories []string, yolo bool) (AutoApprove, error) {
	p.DenyList = append([]string(nil), p.DenyList...)
	p.AllowList = append([]string(nil), p.AllowList...)
	for _, c := range categories {
		switch strings.TrimSpace(c) {
		case "":
			continue
		case "read":
			p.ReadFiles = true
		case "edit":
			p.EditFiles = true
		case "command":
			p.SafeCommands, p.AllCommands = true, true
		case "browser":
			p.Browser = true
		case "local":
			p.LocalNetwork = true
		case "mcp":
			p.MCP = true
		case "protected":
			p.Protected = true
		case "outside":
			p.ReadFilesOutside, p.EditFilesOutside = true, true
		default:
			return p, fmt.Errorf("--auto-approve: unknown category %q (use %s)", c, strings.Join(ApprovalCategories, ","))
		}
		p.Enabled = true
	}
	p.YOLO = p.YOLO || yolo
	return p, nil
}
