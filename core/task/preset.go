package task

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// NewID returns a fresh task id, for a caller that names what it prepares for a task before
// the task starts (its worktree and branch: docs/architecture.md, "Worktrees"), and then
// passes it as Options.ID.
func NewID() string { return newID(time.Now()) }

// Title is the title a task started with text gets.
func Title(text string) string { return title(text) }

// newID is a task id made at now: its time, then random hex.
func newID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%d-%s", now.UnixMilli(), hex.EncodeToString(b[:]))
}

// title is the first line of text, cut at 100 characters.
func title(text string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	if r := []rune(line); len(r) > 100 {
		line = string(r[:100]) + "…"
	}
	return line
}
