package parse

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// feedChunks streams chunks into a fresh parser, checking after every chunk that nothing the
// loop could have streamed is retracted, and returns the final blocks.
func feedChunks(t testing.TB, g Grammar, chunks []string) []Block {
	t.Helper()
	p := New(g)
	var prev []Block
	for i, c := range chunks {
		p.Feed(c)
		cur := p.Blocks()
		if err := grows(prev, cur); err != "" {
			t.Fatalf("after chunk %d %q of %q: %s\nbefore: %s\nafter: %s", i, c, chunks, err, canonical(t, prev), canonical(t, cur))
		}
		prev = cur
	}
	final := p.End()
	if err := grows(prev, final); err != "" {
		t.Fatalf("at End of %q: %s\nbefore: %s\nafter: %s", chunks, err, canonical(t, prev), canonical(t, final))
	}
	return final
}

// grows reports how cur fails to extend prev, or "" when it does: complete blocks never
// change, an open text block's content and an open tool's values only grow. Two retractions
// are allowed by design: text after the tool call vanishes when a second call begins, and a
// parameter after a raw value (content, diff) vanishes when a later closing tag of the raw
// value shows it was file bytes.
func grows(prev, cur []Block) string {
	for i, b := range prev {
		if i >= len(cur) {
			if b.Type == Text && i > 0 && prev[i-1].Type == ToolUse && !prev[i-1].Partial {
				continue
			}
			return "block vanished"
		}
		c := cur[i]
		if c.Type != b.Type || c.Name != b.Name {
			return "block changed kind"
		}
		if !b.Partial {
			if !sameBlocks([]Block{b}, []Block{c}) {
				return "complete block changed"
			}
			continue
		}
		if !strings.HasPrefix(c.Content, b.Content) {
			return "text is not a prefix of its later self"
		}
		for k, v := range b.Params {
			w, ok := c.Params[k]
			if swallowed(b, c) {
				continue
			}
			if !ok {
				return "parameter " + k + " vanished"
			}
			if !strings.HasPrefix(w, v) {
				return "parameter " + k + " is not a prefix of its later self"
			}
		}
	}
	return ""
}

// swallowed reports whether the raw value of cur took in a closing tag of its own name since
// prev: then the parameters parsed after the earlier closing tag were file bytes.
func swallowed(prev, cur Block) bool {
	raw, ok := rawParams.Get()[cur.Name]
	closing := "</" + raw + ">"
	return ok && strings.Count(cur.Params[raw], closing) > strings.Count(prev.Params[raw], closing)
}

// chunkings returns the ways the property tests split s: one piece, single bytes, every split
// into two pieces (small inputs), and seeded random sizes.
func chunkings(s string, rng *rand.Rand) [][]string {
	out := [][]string{{s}}
	var ones []string
	for i := range len(s) {
		ones = append(ones, s[i:i+1])
	}
	out = append(out, ones)
	if len(s) <= 400 {
		for i := 1; i < len(s); i++ {
			out = append(out, []string{s[:i], s[i:]})
		}
	}
	for range 20 {
		var cs []string
		for rest := s; rest != ""; {
			n := min(1+rng.IntN(12), len(rest))
			cs = append(cs, rest[:n])
			rest = rest[n:]
		}
		out = append(out, cs)
	}
	return out
}

func TestChunkingInvariance(t *testing.T) {
	g := DefaultGrammar()
	for _, c := range loadCases(t) {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(len(c.input))))
			want := Parse(g, c.input)
			for _, chunks := range chunkings(c.input, rng) {
				got := feedChunks(t, g, chunks)
				if !sameBlocks(got, want) {
					t.Fatalf("chunks %q\ngot: %s\nwant: %s", chunks, canonical(t, got), canonical(t, want))
				}
			}
		})
	}
}

// TestStreaming pins what Blocks shows in the middle of a stream: the snapshots the loop
// turns into deltas.
func TestStreaming(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   []string // canonical JSON (compact) of Blocks() after each chunk
	}{
		{
			name:   "trailing space and cut tag held back",
			chunks: []string{"Hello ", "world  <wri", "te_to_file>"},
			want: []string{
				`[{"type":"text","content":"Hello","partial":true}]`,
				`[{"type":"text","content":"Hello world","partial":true}]`,
				`[{"type":"text","content":"Hello world","partial":false},{"type":"tool_use","name":"write_to_file","params":{},"partial":true}]`,
			},
		},
		{
			name:   "lt that is not a tag is released",
			chunks: []string{"a <", "b", "ig> c"},
			want: []string{
				`[{"type":"text","content":"a","partial":true}]`,
				`[{"type":"text","content":"a","partial":true}]`,
				`[{"type":"text","content":"a <big> c","partial":true}]`,
			},
		},
		{
			name:   "param value never shows a half closing tag",
			chunks: []string{"<read_file><path>src/", "a.go</pa", "th>"},
			want: []string{
				`[{"type":"tool_use","name":"read_file","params":{"path":"src/"},"partial":true}]`,
				`[{"type":"tool_use","name":"read_file","params":{"path":"src/a.go"},"partial":true}]`,
				`[{"type":"tool_use","name":"read_file","params":{"path":"src/a.go"},"partial":true}]`,
			},
		},
		{
			name:   "content holds back its last newline and a split rune",
			chunks: []string{"<write_to_file><path>a</path><content>\nx\n", "y\xe6\x97", "\xa5\r", "\n</content>", "\nz</content></write_to_file>"},
			want: []string{
				`[{"type":"tool_use","name":"write_to_file","params":{"content":"x","path":"a"},"partial":true}]`,
				`[{"type":"tool_use","name":"write_to_file","params":{"content":"x\ny","path":"a"},"partial":true}]`,
				`[{"type":"tool_use","name":"write_to_file","params":{"content":"x\ny日","path":"a"},"partial":true}]`,
				`[{"type":"tool_use","name":"write_to_file","params":{"content":"x\ny日","path":"a"},"partial":true}]`,
				`[{"type":"tool_use","name":"write_to_file","params":{"content":"x\ny日\r\n</content>\nz","path":"a"},"partial":false}]`,
			},
		},
		{
			name:   "text after the tool streams, then a second tool drops it",
			chunks: []string{"<read_file><path>a</path></read_file>", "\nMore", " text <read_file>"},
			want: []string{
				`[{"type":"tool_use","name":"read_file","params":{"path":"a"},"partial":false}]`,
				`[{"type":"tool_use","name":"read_file","params":{"path":"a"},"partial":false},{"type":"text","content":"More","partial":true}]`,
				`[{"type":"tool_use","name":"read_file","params":{"path":"a"},"partial":false}]`,
			},
		},
		{
			name:   "split unicode space is decided when complete",
			chunks: []string{"a\xe3\x80", "\x80", "b"},
			want: []string{
				`[{"type":"text","content":"a","partial":true}]`,
				`[{"type":"text","content":"a","partial":true}]`,
				`[{"type":"text","content":"a　b","partial":true}]`,
			},
		},
	}
	g := DefaultGrammar()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(g)
			for i, c := range tt.chunks {
				p.Feed(c)
				got := strings.TrimSpace(compactJSON(t, p.Blocks()))
				if got != tt.want[i] {
					t.Errorf("after chunk %d %q:\ngot  %s\nwant %s", i, c, got, tt.want[i])
				}
			}
		})
	}
}

func TestToolDone(t *testing.T) {
	tests := []struct {
		name   string
		chunks []string
		want   []bool // ToolDone after each chunk
	}{
		{"text only", []string{"hello", " world"}, []bool{false, false}},
		{"closes on last byte", []string{"<read_file><path>a</path></read_file", ">"}, []bool{false, true}},
		{"tool close inside a value is not the end", []string{"<execute_command><command></execute_command>", "</command>", "</execute_command>"}, []bool{false, false, true}},
		{"content close is only tentative", []string{"<write_to_file><path>a</path><content>x</content>", "</write_to_file>"}, []bool{false, true}},
		{"stays done after a second tool", []string{"<list_files><path>.</path></list_files>", "<read_file>"}, []bool{true, true}},
	}
	g := DefaultGrammar()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := New(g)
			for i, c := range tt.chunks {
				p.Feed(c)
				if p.ToolDone() != tt.want[i] {
					t.Errorf("after chunk %d %q: ToolDone = %v, want %v", i, c, p.ToolDone(), tt.want[i])
				}
			}
		})
	}
}

func TestEndIsFinal(t *testing.T) {
	p := New(DefaultGrammar())
	p.Feed("Hi <read_file><path>a")
	first := p.End()
	p.Feed("</path></read_file>")
	if again := p.End(); !sameBlocks(first, again) {
		t.Errorf("End after Feed changed: %s vs %s", canonical(t, first), canonical(t, again))
	}
	if !sameBlocks(p.Blocks(), first) {
		t.Errorf("Blocks after End differs from End")
	}
	if p.ToolDone() {
		t.Errorf("ToolDone after a feed past End")
	}
}

func TestBlocksParamsAreCopies(t *testing.T) {
	p := New(DefaultGrammar())
	p.Feed("<read_file><path>a</path></read_file>")
	p.Blocks()[0].Params["path"] = "changed"
	if got := p.Blocks()[0].Params["path"]; got != "a" {
		t.Errorf("path = %q after a caller changed its copy", got)
	}
}

func TestCustomGrammar(t *testing.T) {
	g := Grammar{"ping": {"host", "host"}}
	got := Parse(g, "<read_file><path>a</path></read_file><ping><host> h </host></ping>")
	want := []Block{
		{Type: Text, Content: "<read_file><path>a</path></read_file>"},
		{Type: ToolUse, Name: "ping", Params: map[string]string{"host": "h"}},
	}
	if !sameBlocks(got, want) {
		t.Errorf("got %s", canonical(t, got))
	}
}

func TestDefaultGrammar(t *testing.T) {
	g := DefaultGrammar()
	if len(g) != 18 {
		t.Errorf("%d tools, want 18", len(g))
	}
	for name, params := range g {
		if len(params) == 0 || params[len(params)-1] != TaskProgress {
			t.Errorf("%s: params %v do not end with task_progress", name, params)
		}
	}
	g["read_file"] = nil
	if len(DefaultGrammar()["read_file"]) == 0 {
		t.Errorf("DefaultGrammar shares its map between calls")
	}
}
