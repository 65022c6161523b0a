package config

// SessionRule is an allow rule a user gave in a session: an "always" answer to an approval
// (README "Use Cairn in Zed, JetBrains, Neovim"). It is written in the policy files' format
// (docs/settings.md, "Policy files"): core/policy.Rule has the same fields and reads it as a
// rule of the task's session layer. It is saved in the task's header (store.Meta), so a
// resumed task keeps it and `cairn why --task` shows it.
type SessionRule struct {
	Command string `json:"command,omitempty"`
	Files   string `json:"files,omitempty"`
	Tool    string `json:"tool,omitempty"`
	MCP     string `json:"mcp,omitempty"`
	Web     string `json:"web,omitempty"`
}
