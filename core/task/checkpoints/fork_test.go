package checkpoints

import (
	"errors"
	"testing"

	"github.com/cairnhq/cairn/core/msg"
)

func TestOf(t *testing.T) {
	cp := func(hash string, api int) msg.Message {
		return msg.Message{Type: msg.Say, Kind: msg.SayCheckpointCreated, Payload: &msg.Checkpoint{Hash: hash, APIIndex: api}}
	}
	text := msg.Message{Type: msg.Say, Kind: msg.SayText, Text: "hi"}
	ms := []msg.Message{text, cp("a1", 2), text, text, cp("b2", 0), text}
	for _, tc := range []struct {
		name  string
		index int
		row   int
		hash  string
	}{
		{"a message the checkpoint follows", 0, 1, "a1"},
		{"the checkpoint row itself", 1, 1, "a1"},
		{"no checkpoint right after", 2, -1, ""},
		{"a checkpoint from before forks were recorded", 3, -1, ""},
		{"the last row", 5, -1, ""},
		{"out of range", 9, -1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Of(ms, tc.index)
			if tc.row < 0 {
				if !errors.Is(err, ErrNoCheckpoint) {
					t.Fatalf("Of(%d) = %v, %v; want ErrNoCheckpoint", tc.index, p, err)
				}
				return
			}
			if err != nil || p.Row != tc.row || p.Hash != tc.hash {
				t.Fatalf("Of(%d) = %+v, %v; want row %d hash %s", tc.index, p, err, tc.row, tc.hash)
			}
		})
	}
}
