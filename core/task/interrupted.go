package task

import (
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/prompt"
)

// interruptedCommandNote tells the model, when it resumes, that its last command had started
// and what it printed before an interruption stopped it (README "Use Cairn in Zed,
// JetBrains, Neovim": the note after a cancel says what actually ran). It is empty when the
// last tool call got its result or no command had started: the resume note's rule holds then.
// h is the API history, ms the chat's rows.
func interruptedCommandNote(h []llm.Message, ms []msg.Message) []llm.Content {
	if len(h) == 0 || h[len(h)-1].Role != llm.RoleAssistant {
		return nil
	}
	output, ran := "", false
	for i := len(ms) - 1; i >= 0; i-- {
		m := ms[i]
		switch m.Kind {
		case msg.SayAPIReqStarted:
			return nil
		case msg.SayCommandOutput:
			if !ran {
				output, ran = m.Text, true
				if o, ok := m.Payload.(*msg.CommandOutput); ok && o.Output != "" {
					output = o.Output
				}
			}
		case msg.SayCommand: // an asked command's row has the same kind (msg.AskCommand)
			c, ok := m.Payload.(*msg.Command)
			if !ran || !ok {
				return nil
			}
			return []llm.Content{llm.Text(prompt.InterruptedCommand(c.Command, output))}
		}
	}
	return nil
}
