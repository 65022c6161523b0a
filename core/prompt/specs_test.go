package prompt

import "github.com/cairnhq/cairn/core/tools"

// testSpecs are realistic stand-ins for the Specs the tool families supply in the product,
// in the order the registry offers them. Their wording is the test's, not the product's.
func testSpecs() []tools.Spec {
	return []tools.Spec{
		{
			Name:        "execute_command",
			Description: "Run a shell command in the working directory and get its output. Use it for builds, tests, package managers, git and any other CLI work. Commands that keep running (servers, watchers) may continue in the background.",
			Category:    tools.CategoryCommand,
			ArgParam:    "command",
			Params: []tools.Param{
				{Name: "command", Required: true, Description: "The command line to run, valid for the user's OS and shell. Avoid interactive commands.", Usage: "Your command here"},
				{Name: "requires_approval", Required: true, Description: "true for commands with side effects the user should review (installing, deleting, overwriting, network, deploying); false for safe ones such as reading, listing, building or testing.", Usage: "true or false"},
				{Name: "timeout", Description: "Seconds to wait before stopping the command. Leave it out for commands that should run until they finish.", Usage: "Seconds (optional)"},
			},
		},
		{
			Name:        "read_file",
			Description: "Read a file and get its content. Text is returned as is; PDF, DOCX and notebooks are converted to text; images are shown to vision models. Long files return their first part with a note on how to read further.",
			Category:    tools.CategoryRead,
			PlanSafe:    true,
			ArgParam:    "path",
			Params: []tools.Param{
				{Name: "path", Required: true, Description: "Path of the file, relative to the working directory.", Usage: "File path here"},
				{Name: "start_line", Description: "First line to read (1-based).", Usage: "Line number (optional)"},
				{Name: "end_line", Description: "Last line to read, inclusive.", Usage: "Line number (optional)"},
			},
		},
		{
			Name:        "write_to_file",
			Description: "Write a whole file, creating it and any missing folders, or replacing what it held.",
			Category:    tools.CategoryEdit,
			ArgParam:    "path",
			Params: []tools.Param{
				{Name: "path", Required: true, Description: "Path of the file, relative to the working directory.", Usage: "File path here"},
				{Name: "content", Required: true, Description: "The complete file content, with nothing left out.", Usage: "Your file content here"},
			},
		},
		{
			Name:        "replace_in_file",
			Description: "Change parts of an existing file with SEARCH/REPLACE blocks (see EDITING FILES).",
			Category:    tools.CategoryEdit,
			ArgParam:    "path",
			Params: []tools.Param{
				{Name: "path", Required: true, Description: "Path of the file, relative to the working directory.", Usage: "File path here"},
				{Name: "diff", Required: true, Description: "One or more SEARCH/REPLACE blocks.", Usage: "Search and replace blocks here"},
			},
		},
		{
			Name:        "search_files",
			Description: "Search the files under a folder for a regular expression (RE2 syntax) and get each match with a line of context on either side.",
			Category:    tools.CategoryRead,
			PlanSafe:    true,
			ArgParam:    "regex",
			Params: []tools.Param{
				{Name: "path", Required: true, Description: "Folder to search, recursively, relative to the working directory.", Usage: "Directory path here"},
				{Name: "regex", Required: true, Description: "The regular expression to look for.", Usage: "Your regex pattern here"},
				{Name: "file_pattern", Description: "Glob limiting which files are searched, e.g. *.ts.", Usage: "file pattern here (optional)"},
			},
		},
		{
			Name:        "list_files",
			Description: "List the files and folders in a folder. Do not use it to check a file you just created: the tool result already says whether that worked.",
			Category:    tools.CategoryRead,
			PlanSafe:    true,
			ArgParam:    "path",
			Params: []tools.Param{
				{Name: "path", Required: true, Description: "Folder to list, relative to the working directory.", Usage: "Directory path here"},
				{Name: "recursive", Description: "true to list everything below the folder, false (default) for its direct entries only.", Usage: "true or false (optional)"},
			},
		},
		{
			Name:        "list_code_definition_names",
			Description: "List the top-level definitions (classes, functions, methods, types) in the source files directly inside a folder.",
			Category:    tools.CategoryRead,
			PlanSafe:    true,
			ArgParam:    "path",
			Params: []tools.Param{
				{Name: "path", Required: true, Description: "Folder to inspect, relative to the working directory.", Usage: "Directory path here"},
			},
		},
		{
			Name:        "browser_action",
			Description: "Drive a headless browser. Each action returns a screenshot and new console output. A session starts with launch and ends with close; in between, only browser_action may be used. Click at the centre of what you see in the latest screenshot.",
			Category:    tools.CategoryBrowser,
			ArgParam:    "action",
			Params: []tools.Param{
				{Name: "action", Required: true, Description: "One of: launch (open url), click (at coordinate), type (text), scroll_down, scroll_up, close.", Usage: "Action to perform (e.g., launch, click, type, scroll_down, scroll_up, close)"},
				{Name: "url", Description: "For launch: the address to open, e.g. http://localhost:3000.", Usage: "URL to launch the browser at (optional)"},
				{Name: "coordinate", Description: "For click: x,y in pixels within the viewport.", Usage: "x,y coordinates (optional)"},
				{Name: "text", Description: "For type: the text to type.", Usage: "Text to type (optional)"},
			},
		},
		{
			Name:        "use_mcp_tool",
			Description: "Call a tool of a connected MCP server.",
			Category:    tools.CategoryMCP,
			PlanSafe:    true,
			ArgParam:    "server_name",
			Params: []tools.Param{
				{Name: "server_name", Required: true, Description: "The server's name.", Usage: "server name here"},
				{Name: "tool_name", Required: true, Description: "The tool's name.", Usage: "tool name here"},
				{Name: "arguments", Required: true, Description: "A JSON object matching the tool's input schema.", Usage: "JSON arguments here"},
			},
		},
		{
			Name:        "access_mcp_resource",
			Description: "Read a resource (a file, API response, system state…) from a connected MCP server.",
			Category:    tools.CategoryMCP,
			PlanSafe:    true,
			ArgParam:    "server_name",
			Params: []tools.Param{
				{Name: "server_name", Required: true, Description: "The server's name.", Usage: "server name here"},
				{Name: "uri", Required: true, Description: "URI of the resource.", Usage: "resource URI here"},
			},
		},
		{
			Name:        "load_mcp_documentation",
			Description: "Get the guide to building and installing a new MCP server. Use it when the user asks for a capability that needs one.",
			Category:    tools.CategoryMCP,
			PlanSafe:    true,
		},
		{
			Name:        "ask_followup_question",
			Description: "Ask the user a question when you need details only they can give. Keep it specific; prefer finding things out with tools.",
			Category:    tools.CategoryInteract,
			PlanSafe:    true,
			ArgParam:    "question",
			Params: []tools.Param{
				{Name: "question", Required: true, Description: "The question.", Usage: "Your question here"},
				{Name: "options", Description: "A JSON array of 2 to 5 short answers the user can pick from.", Usage: `Array of options here (optional), e.g. ["Option 1", "Option 2"]`},
			},
		},
		{
			Name:        "attempt_completion",
			Description: "Present the finished work to the user. Use it only once every previous tool call has been confirmed to succeed. The user may reply with feedback to act on.",
			Category:    tools.CategoryInteract,
			Params: []tools.Param{
				{Name: "result", Required: true, Description: "What was done, stated as final: no questions, no offers of more help.", Usage: "Your final result description here"},
				{Name: "command", Description: "A command that shows the result, e.g. open index.html. Not for commands that merely print text.", Usage: "Command to demonstrate result (optional)"},
			},
		},
		{
			Name:        "new_task",
			Description: "Offer the user a fresh task that continues this one, carrying over the context you write. Use it when the conversation grows long or the user asks.",
			Category:    tools.CategoryInteract,
			Params: []tools.Param{
				{Name: "context", Required: true, Description: "What the new task needs: the work so far, what remains, decisions made and the files involved.", Usage: "context to preload new task with"},
			},
		},
		{
			Name:        "plan_mode_respond",
			Description: "Reply to the user in PLAN MODE: answer, ask, or present a plan. Available only in PLAN MODE.",
			Category:    tools.CategoryInteract,
			PlanSafe:    true,
			Params: []tools.Param{
				{Name: "response", Required: true, Description: "Your message to the user.", Usage: "Your response here"},
				{Name: "needs_more_exploration", Description: "true when you still need to read files or search before you can plan; you will continue instead of waiting for the user.", Usage: "true or false (optional)"},
			},
		},
	}
}

// withoutCategories drops the specs in the given categories (a tool the user switched off).
func withoutCategories(specs []tools.Spec, drop ...tools.Category) []tools.Spec {
	out := specs[:0:0]
	for _, s := range specs {
		keep := true
		for _, c := range drop {
			keep = keep && s.Category != c
		}
		if keep {
			out = append(out, s)
		}
	}
	return out
}
