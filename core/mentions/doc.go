// Package mentions recognises the @-mentions of user text and expands them into the context
// the model sees (docs/prompt.md, "Mentions, slash commands and rules").
//
// Recognition is purely syntactic: a token that starts with `@` at the start of the text or
// right after whitespace and names a workspace path (`@/src/main.go`, `@/docs/`,
// `@/my\ notes.md`, `@"/my notes.md"`), a keyword (`@problems`, `@terminal`,
// `@git-changes`), a commit (`@` + 7–40 lower-case hex digits) or an http(s) URL. A missing
// file is still a mention; expanding it yields an error inside its block.
//
// Expansion replaces every token with a short reference and appends one block per distinct
// mention: `<file_content>`, `<folder_content>`, `<workspace_diagnostics>`,
// `<terminal_output>`, `<git_working_state>`, `<git_commit>` or `<url_content>`. Anything that
// goes wrong while gathering a block (a missing file, a failed fetch, git refusing) becomes
// text inside that block, so the model learns what happened and the turn goes on. The user's
// ignore file applies to every path a mention would show.
//
// The loop wraps the expanded text in its `<task>`, `<feedback>`, `<answer>` or
// `<user_message>` tag, which is why only plain user text is ever passed here.
package mentions
