package llmtest

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestChunks(t *testing.T) {
	tests := []struct {
		text string
		size int
		want []string
	}{
		{"", 4, nil},
		{"hello", 0, []string{"hello"}},
		{"hello world", 4, []string{"hell", "o wo", "rld"}},
		{"héllo", 2, []string{"h", "é", "ll", "o"}},
		{"日本語", 2, []string{"日", "本", "語"}}, // 3-byte runes bigger than the chunk
		{"日本語", 7, []string{"日本", "語"}},
		{"a😀b", 3, []string{"a", "😀", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			got := chunks(tt.text, tt.size)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("chunks(%q, %d) = %q, want %q", tt.text, tt.size, got, tt.want)
			}
		})
	}
}

func TestLoadScript(t *testing.T) {
	f, err := os.Open("testdata/demo.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadScript(f)
	_ = f.Close() // opened read-only: a failed close loses nothing
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Turns) != 3 || len(s.Models) != 2 || s.OnEnd == nil || s.OnEnd.Text != "done" {
		t.Fatalf("script = %+v", s)
	}
	if f := s.Turns[0].Fault; f == nil || f.Status != 429 || f.RetryAfter != "2" {
		t.Errorf("turn 0 fault = %+v", f)
	}
	if d := time.Duration(s.Turns[1].Delay); d != time.Millisecond {
		t.Errorf("turn 1 delay = %v, want 1ms", d)
	}
	if u := s.Turns[1].Usage; u == nil || u.CachedTokens != 1000 || u.Cost == nil || *u.Cost != 0.0042 {
		t.Errorf("turn 1 usage = %+v", u)
	}
	if s.Turns[2].Times != 2 || !s.Turns[2].Fault.Cut || s.Turns[2].Fault.At != 3 {
		t.Errorf("turn 2 = %+v", s.Turns[2])
	}

	bad := []struct{ name, json string }{
		{"unknown field", `{"turns": [{"txt": "typo"}]}`},
		{"bad duration", `{"turns": [{"delay": "soon"}]}`},
		{"not json", `turns:`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := LoadScript(strings.NewReader(tt.json)); err == nil {
				t.Errorf("LoadScript(%s) accepted it", tt.json)
			}
		})
	}
	var d Duration
	if err := d.UnmarshalJSON([]byte("250")); err != nil || time.Duration(d) != 250*time.Millisecond {
		t.Errorf("numeric duration = %v, %v; want 250ms", time.Duration(d), err)
	}
}

func TestEndTurnCompletes(t *testing.T) {
	turn := EndTurn()
	if !strings.HasPrefix(turn.Text, "<attempt_completion>") || !strings.Contains(turn.Text, "<result>") ||
		!strings.HasSuffix(strings.TrimSpace(turn.Text), "</attempt_completion>") {
		t.Errorf("EndTurn text is not an attempt_completion call:\n%s", turn.Text)
	}
}
