package cli

import (
	"bytes"
	"strings"
	"testing"
)

// However a row's text is cut into deltas, its thinking is printed the same way: labelled,
// without tags or the whitespace around them, dimmed on a terminal; other text, including a
// lone "<", is kept as it is.
func TestThinkingSplitAcrossDeltas(t *testing.T) {
	for _, tc := range []struct {
		name, text, plain string
	}{
		{"closed", "<thinking>\n  plan\n  more\n</thinking>\n\nDone.", "thinking: plan\n  more\nDone."},
		{"text around", "Intro. <thinking>why</thinking> After < before.", "Intro. \nthinking: why\nAfter < before."},
		{"unclosed", "<thinking>still thinking <thin", "thinking: still thinking <thin\n"},
		{"no tags", "a <b> c <thinkin", "a <b> c <thinkin"},
		{"empty section", "<thinking>\n</thinking>\nText", "Text"},
	} {
		for _, size := range []int{1, 3, 7, len(tc.text)} {
			for _, tty := range []bool{false, true} {
				var out bytes.Buffer
				p := &printer{io: IO{Out: &out}, lastNL: true, outTTY: &tty}
				var t0 thinkingSplit
				for i := 0; i < len(tc.text); i += size {
					t0.feed(tc.text[i:min(i+size, len(tc.text))], textOut{p})
				}
				t0.finish(textOut{p})
				got := out.String()
				if tty {
					if !strings.Contains(got, faintOn+"thinking:"+faintOff) && strings.Contains(tc.plain, "thinking:") {
						t.Errorf("%s/%d: the label is not dimmed: %q", tc.name, size, got)
					}
					got = strings.NewReplacer(faintOn, "", faintOff, "").Replace(got)
				}
				if got != tc.plain {
					t.Errorf("%s/%d/tty=%v: got %q, want %q", tc.name, size, tty, got, tc.plain)
				}
			}
		}
	}
	var out bytes.Buffer
	tty := true
	p := &printer{io: IO{Out: &out}, lastNL: true, outTTY: &tty}
	var split thinkingSplit
	split.feed("<thinking>plan\n  more</thinking>\nDone.", textOut{p})
	split.finish(textOut{p})
	if want := faintOn + "thinking:" + faintOff + " " + faintOn + "plan\n  more" + faintOff + "\nDone."; out.String() != want {
		t.Errorf("on a terminal: got %q, want %q", out.String(), want)
	}
}
