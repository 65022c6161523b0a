// toolWords turns a tool call as the daemon names it ("read_file src/a.go", see core/msg's
// Subagent.LastTool) into what the user sees happen ("Read src/a.go"): tool names are the
// model's vocabulary, not the user's.

const verbs: Record<string, string> = {
  read_file: "Read",
  write_to_file: "Wrote",
  replace_in_file: "Edited",
  apply_patch: "Edited",
  execute_command: "Ran",
  list_files: "Listed",
  search_files: "Searched for",
  list_code_definition_names: "Listed the definitions in",
  browser_action: "Used the browser",
  web_fetch: "Fetched",
  use_mcp_tool: "Used the MCP tool",
  access_mcp_resource: "Read the MCP resource",
  load_mcp_documentation: "Read the MCP documentation",
  use_skill: "Used the skill",
  use_subagents: "Started subagents",
  ask_followup_question: "Asked a question",
  plan_mode_respond: "Answered with a plan",
  attempt_completion: "Finished",
  new_task: "Proposed a new task",
  condense: "Condensed the conversation",
};

/** toolWords is a tool call in the user's words; an unknown tool keeps its name. */
export function toolWords(call: string): string {
  const t = call.trim();
  const sp = t.search(/\s/);
  const name = sp < 0 ? t : t.slice(0, sp);
  const arg = sp < 0 ? "" : t.slice(sp).trim();
  const verb = verbs[name];
  if (!verb) return t;
  // These report the whole step; an argument adds nothing the user needs.
  if (name === "attempt_completion" || name === "ask_followup_question" || name === "plan_mode_respond" || name === "use_subagents") return verb;
  return arg ? `${verb} ${arg}` : verb;
}
