package guards

import (
	"testing"

	"github.com/cairnhq/cairn/core/msg"
)

// A task loaded from history counts its subagents' requests with its own.
func TestCountRequestsIncludesSubagents(t *testing.T) {
	ms := []msg.Message{
		{Type: msg.Say, Kind: msg.SayAPIReqStarted},
		{Type: msg.Say, Kind: msg.SaySubagents, Text: `{"children":[{"prompt":"a","status":"done","requests":3},{"prompt":"b","status":"failed","requests":2}]}`},
		{Type: msg.Say, Kind: msg.SaySubagents, Text: `not json`},
		{Type: msg.Say, Kind: msg.SayAPIReqStarted},
	}
	if n := CountRequests(ms); n != 7 {
		t.Fatalf("counted %d, want 7", n)
	}
}
