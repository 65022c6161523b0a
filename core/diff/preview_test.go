package diff

import (
	"errors"
	"strings"
	"testing"
)

// TestPreviewSteps feeds diffs piece by piece and checks what the diff view is told after
// each piece.
func TestPreviewSteps(t *testing.T) {
	type step struct {
		add     string // text appended to the diff
		changed bool
		line    int
		content string // proposed content after the step ("" = not checked)
		err     error  // sentinel expected in View.Err
	}
	const file = "a\nb\nc\nd\n"
	tests := []struct {
		name  string
		steps []step
	}{
		{"search section shows nothing yet", []step{
			{add: "------- SEARCH\nb\n", content: file},
			{add: "=======\n", changed: true, line: 2, content: "a\nc\nd\n"},
			{add: "B1\n", changed: true, line: 2, content: "a\nB1\nc\nd\n"},
			{add: "B2", line: 2, content: "a\nB1\nc\nd\n"}, // partial line held back
			{add: "\n", changed: true, line: 3, content: "a\nB1\nB2\nc\nd\n"},
			{add: "+++++++ REPLACE\n", line: 3, content: "a\nB1\nB2\nc\nd\n"},
		}},
		{"second block scrolls past the first", []step{
			{add: "------- SEARCH\na\n=======\nA1\nA2\nA3\n+++++++ REPLACE\n", changed: true, line: 3},
			{add: "------- SEARCH\nd\n=======\n", changed: true, line: 6, content: "A1\nA2\nA3\nb\nc\n"},
			{add: "D\n+++++++ REPLACE\n", changed: true, line: 6, content: "A1\nA2\nA3\nb\nc\nD\n"},
		}},
		{"out of order block maps its line through earlier edits", []step{
			{add: "------- SEARCH\nc\n=======\n+++++++ REPLACE\n", changed: true, line: 3, content: "a\nb\nd\n"},
			{add: "------- SEARCH\na\n=======\nA\n", changed: true, line: 1, content: "A\nb\nd\n"},
		}},
		{"half-written broken marker is held back until its line ends", []step{
			{add: "------- SEARCH\nb\n=======\nB\n+++++++REPL", changed: true, line: 2},
			{add: "ACE\n", err: ErrMalformedMarker, line: 2, content: "a\nB\nc\nd\n"},
			{add: "------- SEARCH\nc\n=======\nC\n", err: ErrMalformedMarker, line: 2, content: "a\nB\nc\nd\n"},
		}},
		{"no match is reported while streaming and freezes the view", []step{
			{add: "------- SEARCH\nzzz\n=======\n", err: ErrNoMatch, content: file},
		}},
		{"empty SEARCH replaces the whole file until a second block appears", []step{
			{add: "------- SEARCH\n=======\nnew\n+++++++ REPLACE\n", changed: true, line: 1, content: "new\n"},
			{add: "------- SEARCH\n", err: ErrEmptySearch, line: 1, content: "new\n"},
		}},
		{"overlap is reported at the separator", []step{
			{add: "------- SEARCH\nb\nc\n=======\nX\n+++++++ REPLACE\n", changed: true, line: 2},
			{add: "------- SEARCH\nc\n=======\n", err: ErrOverlap, line: 2, content: "a\nX\nd\n"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPreview([]byte(file))
			diff := ""
			for i, s := range tt.steps {
				diff += s.add
				v := p.Update(diff)
				if v.Changed != s.changed || v.Line != s.line {
					t.Errorf("step %d: changed=%v line=%d, want changed=%v line=%d", i, v.Changed, v.Line, s.changed, s.line)
				}
				if s.err == nil && v.Err != nil || s.err != nil && !errors.Is(v.Err, s.err) {
					t.Errorf("step %d: err = %v, want %v", i, v.Err, s.err)
				}
				if s.content != "" {
					if got := string(p.Content()); got != s.content {
						t.Errorf("step %d: content %q, want %q", i, got, s.content)
					}
				}
			}
		})
	}
}

// TestPreviewReadsEachLineOnce guards the linear-cost promise: feeding the diff one byte at
// a time must parse every line exactly once and locate every block once.
func TestPreviewReadsEachLineOnce(t *testing.T) {
	original := genFile(400)
	diff := benchDiff(40, 400, false)
	p := NewPreview(original)
	for i := 1; i <= len(diff); i++ {
		if v := p.Update(diff[:i]); v.Err != nil {
			t.Fatalf("at byte %d: %v", i, v.Err)
		}
	}
	if want := strings.Count(diff, "\n"); p.p.line != want {
		t.Errorf("parser saw %d lines, the diff has %d", p.p.line, want)
	}
	if len(p.m.byBlock) != 40 {
		t.Errorf("%d blocks located, want 40", len(p.m.byBlock))
	}
	res, err := p.Final(diff)
	if err != nil {
		t.Fatal(err)
	}
	if string(p.Content()) != string(res.Content) {
		t.Error("streamed content differs from Final")
	}
}

func TestPreviewRestartsOnShorterText(t *testing.T) {
	p := NewPreview([]byte("a\nb\n"))
	p.Update("------- SEARCH\na\n=======\nX\n+++++++ REPLACE\n")
	v := p.Update("------- SEARCH\nb\n=======\nY\n")
	if v.Err != nil || !v.Changed || v.Line != 2 {
		t.Fatalf("after restart: %+v", v)
	}
	if got := string(p.Content()); got != "a\nY\n" {
		t.Errorf("content %q, want %q", got, "a\nY\n")
	}
}

// TestPreviewEndsLikeFinal streams diffs that end without a last REPLACE marker and checks
// that what the diff view shows at the end is what Final then produces (or that Final refuses
// a diff the view never showed a change for).
func TestPreviewEndsLikeFinal(t *testing.T) {
	const file = "a\nb\nc\n"
	tests := []struct {
		name    string
		diff    string
		shown   string // content of the view after the last chunk
		final   string // Final's content; "" when Final must fail
		wantErr error
	}{
		{name: "ends in REPLACE", diff: "------- SEARCH\nb\n=======\nB1\nB2\n",
			shown: "a\nB1\nB2\nc\n", final: "a\nB1\nB2\nc\n"},
		{name: "ends in REPLACE without a final newline", diff: "------- SEARCH\nb\n=======\nB1\nB2",
			shown: "a\nB1\nc\n", final: "a\nB1\nB2\nc\n"},
		{name: "trailing gt markers and an open last block",
			diff:  "------- SEARCH>\na\n=======\nA\n+++++++ REPLACE>\n------- SEARCH>\nc\n=======\nC\n",
			shown: "A\nb\nC\n", final: "A\nb\nC\n"},
		{name: "ends right after the separator", diff: "------- SEARCH\nb\n=======\n",
			shown: "a\nc\n", final: "a\nc\n"},
		{name: "ends in SEARCH", diff: "------- SEARCH\nb\n",
			shown: file, wantErr: ErrUnclosedBlock},
		{name: "second block ends in SEARCH", diff: "------- SEARCH\na\n=======\nA\n+++++++ REPLACE\n------- SEARCH\nc\n",
			shown: "A\nb\nc\n", wantErr: ErrUnclosedBlock},
		{name: "ends with half a REPLACE marker", diff: "------- SEARCH\nb\n=======\nB\n+++++++ REPL",
			shown: "a\nB\nc\n", wantErr: ErrMalformedMarker},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := NewPreview([]byte(file))
			var v View
			for i := 3; ; i += 3 {
				v = p.Update(tt.diff[:min(i, len(tt.diff))])
				if i >= len(tt.diff) {
					break
				}
			}
			if v.Err != nil {
				t.Fatalf("view error while streaming: %v", v.Err)
			}
			if got := string(p.Content()); got != tt.shown {
				t.Errorf("view shows %q, want %q", got, tt.shown)
			}
			res, err := p.Final(tt.diff)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || res.Content != nil {
					t.Fatalf("Final = %q, %v; want no content and %v", res.Content, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Final: %v", err)
			}
			if string(res.Content) != tt.final {
				t.Errorf("Final = %q, want %q", res.Content, tt.final)
			}
		})
	}
}
