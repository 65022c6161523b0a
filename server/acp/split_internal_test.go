package acp

import "testing"

// Streaming a reply in pieces of every size gives the same thought and text as the whole
// reply, and each step's split extends the previous one (nothing sent is ever taken back).
func TestSplitThinkingStreams(t *testing.T) {
	reply := "<thinking>The user wants a file.</thinking>\\nI'll write it. a < b and </thinking> stays"
	wantThought, wantText := "The user wants a file.", "\\nI'll write it. a < b and </thinking> stays"
	if th, tx := splitThinking(reply, true); th != wantThought || tx != wantText {
		t.Fatalf("split = %q, %q", th, tx)
	}
	for size := 1; size <= len(reply); size++ {
		var th, tx string
		for end := size; ; end += size {
			if end > len(reply) {
				end = len(reply)
			}
			nth, ntx := splitThinking(reply[:end], end == len(reply))
			if len(nth) < len(th) || nth[:len(th)] != th || len(ntx) < len(tx) || ntx[:len(tx)] != tx {
				t.Fatalf("size %d at %d: %q, %q does not extend %q, %q", size, end, nth, ntx, th, tx)
			}
			th, tx = nth, ntx
			if end == len(reply) {
				break
			}
		}
		if th != wantThought || tx != wantText {
			t.Fatalf("size %d: %q, %q", size, th, tx)
		}
	}
}
