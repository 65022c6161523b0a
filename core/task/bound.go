package task

import (
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools/shell"
)

// boundOutputRows cuts command output rows saved before output was bounded down to the view
// execute_command keeps now (first and last lines, the middle counted). Such a row could hold
// the whole of a 50 MB output, twice (text and payload), which no client can be sent: the task
// could never be opened again. Rows within the bound are left alone. The files keep the old
// rows; they are read, not sent.
func boundOutputRows(ms []msg.Message, lines, bytes int) {
	if bytes <= 0 {
		bytes = shell.DefaultByteLimit
	}
	over := func(s string) bool { return len(s) > 2*bytes }
	for i := range ms {
		m := &ms[i]
		if m.Type != msg.Say || m.Kind != msg.SayCommandOutput {
			continue
		}
		if over(m.Text) {
			m.Text = shell.Bound(m.Text, lines, bytes)
		}
		if p, ok := m.Payload.(*msg.CommandOutput); ok && over(p.Output) {
			c := *p
			c.Output = shell.Bound(p.Output, lines, bytes)
			m.Payload = &c
		}
	}
}
