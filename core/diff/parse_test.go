package diff

import "testing"

func TestClassify(t *testing.T) {
	tests := []struct {
		line string
		want marker
	}{
		{"------- SEARCH", searchMarker},
		{"--- SEARCH", searchMarker},
		{"<<<<<<< SEARCH", searchMarker},
		{"  ------- SEARCH \t", searchMarker},
		{"=======", separator},
		{"===", separator},
		{" ======= ", separator},
		{"+++++++ REPLACE", replaceMarker},
		{">>>>>>> REPLACE", replaceMarker},
		{"+++ REPLACE", replaceMarker},
		{"-------SEARCH", broken},
		{"+++++++REPLACE", broken},
		{">>>>>>> SEARCH", broken},
		{"<<<<<<< REPLACE", broken},
		{"-- SEARCH", broken},
		{"------- search", broken},
		{"------- SEARCH>", searchMarker},
		{"<<<<<<< SEARCH>", searchMarker},
		{"  --- SEARCH>\t", searchMarker},
		{"+++++++ REPLACE>", replaceMarker},
		{">>>>>>> REPLACE>", replaceMarker},
		{"------- SEARCH>>", broken},
		{"------- SEARCH >", broken},
		{"+++++++ REPLACE>>", broken},
		{"+++++++ REPLACE >", broken},
		{"------->SEARCH", broken},
		{"------- SEARCH<", broken},
		{"=======>", content},
		{"-------  SEARCH", broken},
		{"---+--- SEARCH", broken},
		{"==", content},
		{"=", content},
		{"---", content},
		{"--- a/x", content},
		{"+++ b/x", content},
		{"=== RUN TestX", content},
		{"-- SEARCH the docs", content},
		{"// SEARCH", content},
		{"SEARCH", content},
		{"REPLACE", content},
		{"", content},
		{"x := a --- b", content},
	}
	for _, tt := range tests {
		if got := classify(tt.line); got != tt.want {
			t.Errorf("classify(%q) = %d, want %d", tt.line, got, tt.want)
		}
	}
}

func TestHalfReplace(t *testing.T) {
	tests := []struct {
		line string
		want bool
	}{
		{"+++++++", true},
		{">>>>>>>", true},
		{"+++", true},
		{"+++++++ ", true},
		{"+++++++ R", true},
		{"+++++++ REPLAC", true},
		{"  >>>>>>> REP\t", true},
		{"++", false},
		{"+++>>>", false},
		{"+++++++ REPLACE", false}, // a whole marker is classified before this is asked
		{"+++++++ RE PLACE", false},
		{"+++++++ replace", false},
		{"+++ b/x", false},
		{"+++++++x", false},
		{"x +++++++", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := halfReplace(tt.line); got != tt.want {
			t.Errorf("halfReplace(%q) = %v, want %v", tt.line, got, tt.want)
		}
	}
}

func TestParseBlocksKeepsLines(t *testing.T) {
	diff := "intro\r\n------- SEARCH\r\n  a\t\r\n\r\n=======\r\nb\r\n+++++++ REPLACE\r\n"
	blocks, err := ParseBlocks(diff)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 1 {
		t.Fatalf("%d blocks, want 1", len(blocks))
	}
	b := blocks[0]
	if len(b.Search) != 2 || b.Search[0] != "  a\t" || b.Search[1] != "" {
		t.Errorf("search = %q", b.Search)
	}
	if len(b.Replace) != 1 || b.Replace[0] != "b" || b.Line != 2 {
		t.Errorf("replace = %q, line %d", b.Replace, b.Line)
	}
}

// TestMessagesComplete checks that every message the code asks for has a section in
// messages.md (a missing one would degrade to a terse fallback text).
func TestMessagesComplete(t *testing.T) {
	for _, key := range []string{"broken", "replace-outside", "search-in-block", "replace-before-separator",
		"second-separator", "unclosed", "no-blocks", "empty-search", "no-match", "ambiguous", "overlap"} {
		if _, ok := messages.Get()[key]; !ok {
			t.Errorf("messages.md has no section %q", key)
		}
	}
	if len(messages.Get()) != 11 {
		t.Errorf("messages.md has %d sections, want 11 (update this test with new ones)", len(messages.Get()))
	}
}
