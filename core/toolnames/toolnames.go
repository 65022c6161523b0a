// Package toolnames names the tools Cairn offers the model, in one place. The tools' own
// packages, the streaming parser's grammar (core/parse), the system prompt (core/prompt), the
// slash commands (core/slash) and the task runtime spell a tool's name through these
// constants, so a renamed tool cannot leave one of them behind (docs/architecture.md,
// "Packages and levels": a leaf every package may import).
package toolnames

// The tools, by the name the model calls them with.
const (
	ExecuteCommand          = "execute_command"
	ReadCommandOutput       = "read_command_output"
	StopCommand             = "stop_command"
	ReadFile                = "read_file"
	WriteToFile             = "write_to_file"
	ReplaceInFile           = "replace_in_file"
	SearchFiles             = "search_files"
	ListFiles               = "list_files"
	ListCodeDefinitionNames = "list_code_definition_names"
	BrowserAction           = "browser_action"
	UseMCPTool              = "use_mcp_tool"
	AccessMCPResource       = "access_mcp_resource"
	LoadMCPDocumentation    = "load_mcp_documentation"
	AskFollowupQuestion     = "ask_followup_question"
	AttemptCompletion       = "attempt_completion"
	NewTask                 = "new_task"
	PlanModeRespond         = "plan_mode_respond"
	Condense                = "condense"
	NewRule                 = "new_rule"
	WebFetch                = "web_fetch"
	UseSubagents            = "use_subagents"
	UseSkill                = "use_skill"
	SwitchMode              = "switch_mode"
	Delegate                = "delegate"
	GoToDefinition          = "go_to_definition"
	FindReferences          = "find_references"
)

// TaskProgress is the parameter every tool accepts: the todo list the model keeps (the focus
// chain).
const TaskProgress = "task_progress"
