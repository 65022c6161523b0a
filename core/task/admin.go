package task

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
)

// SetFavorite marks a task, loaded or not.
func (m *Manager) SetFavorite(id string, fav bool) error {
	if t, ok := m.Get(id); ok {
		t.conv.SetMeta(func(m *store.Meta) { m.Favorite = fav })
		return nil
	}
	if m.store == nil {
		return ErrNotFound
	}
	return m.store.UpdateMeta(id, func(meta *store.Meta) { meta.Favorite = fav })
}

// SetAutoApprove applies a new auto-approval policy to every loaded task but those with a
// policy of their own (config.Overrides).
func (m *Manager) SetAutoApprove(p config.AutoApprove) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.tasks {
		// A change of the task's settings: its writers are serialised by its run state;
		// readers load the pointer without a lock. The header names the policy.
		err := t.state.Change(func(bool) error {
			if ownPolicy(t.conv.Meta()) {
				return errOwnPolicy // the task keeps its own policy
			}
			s := *t.cfg.Settings()
			s.AutoApprove = p
			t.cfg.SetSettings(s)
			return nil
		})
		if err != nil && !errors.Is(err, errOwnPolicy) {
			t.deps.Logger.Warn("task: the shared approval policy was not applied", "task", t.id, "err", err)
		}
	}
}

// errOwnPolicy keeps a task with a policy of its own out of a change of the shared policy.
var errOwnPolicy = errors.New("the task has an approval policy of its own")

// Markdown renders the conversation for export, with a file name.
func (t *Task) Markdown() (string, string) {
	meta := t.conv.Meta()
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", meta.Title)
	for _, m := range t.conv.Messages() {
		switch m.Kind {
		case msg.SayTask:
			fmt.Fprintf(&b, "## User\n\n%s\n\n", m.Text)
		case msg.SayUserFeedback:
			fmt.Fprintf(&b, "## User\n\n%s\n\n", m.Text)
		case msg.SayText, msg.SayCompletionResult:
			if m.Type == msg.Say && strings.TrimSpace(m.Text) != "" {
				fmt.Fprintf(&b, "## Cairn\n\n%s\n\n", m.Text)
			}
		case msg.SayTool:
			if p, ok := m.Payload.(*msg.Tool); ok {
				fmt.Fprintf(&b, "**Tool** `%s` %s\n\n", p.Op, p.Path)
			}
		case msg.SayCommand:
			if p, ok := m.Payload.(*msg.Command); ok {
				fmt.Fprintf(&b, "**Command**\n\n```sh\n%s\n```\n\n", p.Command)
			}
		case msg.AskFollowup:
			fmt.Fprintf(&b, "## Cairn asks\n\n%s\n\n", m.Text)
		}
	}
	name := "cairn_task_" + meta.Created.Format("2006-01-02_15-04-05") + ".md"
	return b.String(), name
}
