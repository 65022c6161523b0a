package conversation

import (
	"slices"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/msg"
)

// Forked returns what a fork of a conversation starts with (README, "Fork from any message"):
// copies of the rows up to and including row, none of them still streaming, and of the first
// apiLen API messages, without the words the user queued after row (they went out with the
// last kept message, as Cut drops them). ms and api are not changed.
func Forked(ms []msg.Message, api []llm.Message, row, apiLen int) ([]msg.Message, []llm.Message) {
	row = min(row, len(ms)-1)
	apiLen = min(max(apiLen, 0), len(api))
	rows := slices.Clone(ms[:row+1])
	for i := range rows {
		rows[i].Partial = false
	}
	saidLater := false
	for _, m := range ms[row+1:] {
		saidLater = saidLater || m.Type == msg.Say && m.Kind == msg.SayUserFeedback
	}
	hist := slices.Clone(api[:apiLen])
	if saidLater && apiLen > 0 {
		if m, ok := withoutLaterFeedback(hist[apiLen-1]); ok {
			hist[apiLen-1] = m
		}
	}
	return rows, hist
}
