// Package commitmsg writes a commit message for staged changes with a model (the editor's
// "Generate commit message", README "Commit messages"). The instructions the model gets are
// in prompt.md.
package commitmsg

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cairnhq/cairn/core/llm"
)

//go:embed prompt.md
var prompt string

// MaxDiff is how much of the diff the model reads; the rest is cut with a note.
const MaxDiff = 60_000

// ErrNoChanges is returned for an empty diff.
var ErrNoChanges = errors.New("commitmsg: nothing is staged")

// Write asks model, through p, for a commit message for diff and returns it trimmed.
func Write(ctx context.Context, p llm.Provider, model, diff string) (string, error) {
	if strings.TrimSpace(diff) == "" {
		return "", ErrNoChanges
	}
	if len(diff) > MaxDiff {
		diff = diff[:MaxDiff] + "\n[the rest of the diff is left out]\n"
	}
	req := llm.Request{Model: model, System: prompt, MaxTokens: 1024,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Content{{Type: llm.ContentText, Text: diff}}}}}
	s, err := p.Stream(ctx, req)
	if err != nil {
		return "", fmt.Errorf("commitmsg: %w", err)
	}
	defer func() { _ = s.Close() }() // the answer is read in full; closing only frees the connection
	var b strings.Builder
	for {
		c, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("commitmsg: %w", err)
		}
		b.WriteString(c.Text)
	}
	return clean(b.String()), nil
}

// clean drops a code fence or quotes a model put around the message anyway.
func clean(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "```") {
		s = strings.TrimPrefix(s, "```")
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
		s = strings.TrimSuffix(strings.TrimSpace(s), "```")
	}
	return strings.TrimSpace(strings.Trim(s, "\""))
}
