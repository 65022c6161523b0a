package task

import (
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/msg"
)

// A task saved with a whole 3 MB output in one row opens with that row cut to the bounded view;
// other rows stay as they were.
func TestBoundOutputRows(t *testing.T) {
	huge := strings.Repeat("0123456789\n", 300_000)
	small := "ok\n"
	code := 0
	cases := []struct {
		name      string
		m         msg.Message
		text      int // at most this many bytes after (0: unchanged)
		unchanged bool
	}{
		{"huge output row", msg.Message{Type: msg.Say, Kind: msg.SayCommandOutput, Text: huge,
			Payload: &msg.CommandOutput{Output: huge, ExitCode: &code}}, 60_000, false},
		{"small output row", msg.Message{Type: msg.Say, Kind: msg.SayCommandOutput, Text: small,
			Payload: &msg.CommandOutput{Output: small, ExitCode: &code}}, 0, true},
		{"huge text row", msg.Message{Type: msg.Say, Kind: msg.SayText, Text: huge}, 0, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := c.m
			ms := []msg.Message{c.m}
			boundOutputRows(ms, 500, 0)
			got := ms[0]
			if c.unchanged {
				if got.Text != before.Text || got.Payload != before.Payload {
					t.Fatal("row changed")
				}
				return
			}
			out := got.Payload.(*msg.CommandOutput)
			if len(got.Text) > c.text || out.Output != got.Text || out.ExitCode != &code {
				t.Fatalf("text %d bytes, payload %d bytes", len(got.Text), len(out.Output))
			}
			if !strings.HasPrefix(got.Text, "0123456789\n") || !strings.HasSuffix(got.Text, "0123456789\n") ||
				!strings.Contains(got.Text, "lines (") {
				t.Errorf("view lacks head, tail or note: %.200q", got.Text)
			}
			if before.Payload.(*msg.CommandOutput).Output != huge {
				t.Error("the original payload was modified")
			}
		})
	}
}
