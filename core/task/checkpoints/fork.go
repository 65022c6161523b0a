package checkpoints

import (
	"errors"
	"fmt"

	"github.com/cairnhq/cairn/core/msg"
)

// ErrNoCheckpoint is returned by Of for a message that has no checkpoint to fork from.
var ErrNoCheckpoint = errors.New("no checkpoint")

// Point is the checkpoint a message is forked from (README, "Fork from any message").
type Point struct {
	// Row is the index of the checkpoint_created row.
	Row int
	// Hash is the checkpoint's commit; APIIndex the length of the API history that goes with it.
	Hash     string
	APIIndex int
}

// Of returns the checkpoint of the message at index in ms: the message itself when it is a
// checkpoint row, else the checkpoint row right after it (the snapshot taken once its tool
// ran). A message with neither, a checkpoint that predates task restores (no APIIndex), or
// an index out of range is ErrNoCheckpoint, with the reason the user reads.
func Of(ms []msg.Message, index int) (Point, error) {
	if index < 0 || index >= len(ms) {
		return Point{}, fmt.Errorf("%w: message %d does not exist", ErrNoCheckpoint, index)
	}
	for _, i := range []int{index, index + 1} {
		if i >= len(ms) {
			break
		}
		m := ms[i]
		cp, ok := m.Payload.(*msg.Checkpoint)
		if m.Type != msg.Say || m.Kind != msg.SayCheckpointCreated || !ok || cp.Hash == "" {
			continue
		}
		if cp.APIIndex <= 0 {
			return Point{}, fmt.Errorf("%w: the checkpoint of message %d predates forks", ErrNoCheckpoint, index)
		}
		return Point{Row: i, Hash: cp.Hash, APIIndex: cp.APIIndex}, nil
	}
	return Point{}, fmt.Errorf("%w: message %d has no checkpoint (nothing was snapshotted after it, or checkpoints were off)", ErrNoCheckpoint, index)
}
