// Package protect is the one list of workspace files that the agent may never change without
// the user's say-so, whatever the auto-approval policy allows for ordinary files: files that
// git, the editor or Cairn itself later read as code or as instructions. A write to one of
// them is approved only by YOLO or by the separate "protected" auto-approve category.
//
// Paths are workspace-relative and slash-separated; an entry matches at any depth (a nested
// repository's .git is as dangerous as the top one). Callers resolve symlinks first and check
// both the path as given and the path it resolves to. A git directory under another name (a
// worktree's or --separate-git-dir's, a bare repository) is found on disk by the caller
// (core/tools) and protected with ReasonGit: this package only holds the list.
package protect

import (
	"path"
	"strings"
)

// Reasons say, in words for the user, why a file is protected.
const (
	ReasonGit      = "git runs its hooks and reads its config from here"
	ReasonHooks    = "rules and hooks for Cairn and other agents; hooks run as code"
	ReasonEditor   = "the editor runs tasks and applies settings from here"
	ReasonIgnore   = "it decides which files Cairn may read"
	ReasonAgentDoc = "agents follow the instructions in this file"
	ReasonHusky    = "husky installs the git hooks in this folder, which git then runs"
	ReasonModes    = "agent modes: the instructions and the tools a mode may use"
)

// Entry is one item of the list.
type Entry struct {
	// Pattern is how the entry reads in documentation: "dir/**" for a folder and everything
	// in it, a bare name for a single file (or a folder of that name).
	Pattern string
	Reason  string

	// parts are the path components that must appear consecutively.
	parts []string
}

// List is every protected entry, in the order the README shows them. A folder's Pattern is
// its path and "/**", a file's its name; parts are the path's components. It is a literal, so
// that it is laid out by the compiler rather than built at start (core/lazy).
var List = []Entry{
	{Pattern: ".git/**", Reason: ReasonGit, parts: []string{".git"}},
	{Pattern: ".husky/**", Reason: ReasonHusky, parts: []string{".husky"}},
	{Pattern: ".clinerules/**", Reason: ReasonHooks, parts: []string{".clinerules"}},
	{Pattern: ".cairnrules/**", Reason: ReasonHooks, parts: []string{".cairnrules"}},
	{Pattern: ".cairn/**", Reason: ReasonHooks, parts: []string{".cairn"}},
	{Pattern: ".cursor/rules/**", Reason: ReasonHooks, parts: []string{".cursor", "rules"}},
	{Pattern: ".claude/**", Reason: ReasonHooks, parts: []string{".claude"}},
	{Pattern: ".vscode/**", Reason: ReasonEditor, parts: []string{".vscode"}},
	{Pattern: ".clineignore", Reason: ReasonIgnore, parts: []string{".clineignore"}},
	{Pattern: ".cairnignore", Reason: ReasonIgnore, parts: []string{".cairnignore"}},
	{Pattern: "AGENTS.md", Reason: ReasonAgentDoc, parts: []string{"AGENTS.md"}},
	{Pattern: ".cursorrules", Reason: ReasonAgentDoc, parts: []string{".cursorrules"}},
	{Pattern: ".windsurfrules", Reason: ReasonAgentDoc, parts: []string{".windsurfrules"}},
	{Pattern: ".roomodes", Reason: ReasonModes, parts: []string{".roomodes"}},
}

// Reason returns why rel is protected, or "" when it is an ordinary path. rel is relative to
// a workspace root, slash-separated; "." and ".." segments are cleaned first. Names compare
// without regard to case, because case-insensitive file systems open .GIT/config as
// .git/config.
func Reason(rel string) string {
	rel = path.Clean(strings.ReplaceAll(rel, `\`, "/"))
	parts := strings.Split(strings.TrimPrefix(rel, "/"), "/")
	for _, e := range List {
		if containsRun(parts, e.parts) {
			return e.Reason
		}
	}
	return ""
}

// containsRun reports whether want appears as consecutive components of parts.
func containsRun(parts, want []string) bool {
	for i := 0; i+len(want) <= len(parts); i++ {
		match := true
		for j, w := range want {
			if !strings.EqualFold(parts[i+j], w) {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// Holds says why the folder dir (a slash-separated path) is protected as a whole when it
// directly holds a protected entry, for commands that act on everything in a folder (rm -r,
// chmod -R): removing "sub" removes "sub/.git". exists tells whether a path exists.
func Holds(dir string, exists func(p string) bool) string {
	dir = path.Clean(strings.ReplaceAll(dir, `\`, "/"))
	for _, e := range List {
		if exists(path.Join(dir, path.Join(e.parts...))) {
			return e.Reason
		}
	}
	return ""
}
