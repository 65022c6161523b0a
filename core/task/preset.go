package task

import "time"

// NewID returns a fresh task id, for a caller that names what it prepares for a task before
// the task starts (its worktree and branch: docs/architecture.md, "Worktrees"), and then
// passes it as Options.ID.
func NewID() string { return newID(time.Now()) }

// Title is the title a task started with text gets.
func Title(text string) string { return title(text) }
