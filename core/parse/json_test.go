package parse

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

func compactJSON(t testing.TB, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestBlockJSON(t *testing.T) {
	tests := []struct {
		name  string
		block Block
		want  string
	}{
		{"text", Block{Type: Text, Content: "<thinking>a & b</thinking>", Partial: true},
			`{"type":"text","content":"<thinking>a & b</thinking>","partial":true}`},
		{"empty text", Block{Type: Text}, `{"type":"text","content":"","partial":false}`},
		{"tool", Block{Type: ToolUse, Name: "read_file", Params: map[string]string{"path": "a", "end_line": "9"}},
			`{"type":"tool_use","name":"read_file","params":{"end_line":"9","path":"a"},"partial":false}`},
		{"tool without params", Block{Type: ToolUse, Name: "load_mcp_documentation", Partial: true},
			`{"type":"tool_use","name":"load_mcp_documentation","params":{},"partial":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.block.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got  %s\nwant %s", b, tt.want)
			}
			var back Block
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if !sameBlocks([]Block{back}, []Block{tt.block}) {
				t.Errorf("round trip: %+v, want %+v", back, tt.block)
			}
		})
	}
}

func TestBlockJSONErrors(t *testing.T) {
	if _, err := (Block{Type: 7}).MarshalJSON(); !errors.Is(err, ErrBadBlock) {
		t.Errorf("marshal of type 7: %v, want ErrBadBlock", err)
	}
	var b Block
	if err := json.Unmarshal([]byte(`{"type":"image"}`), &b); !errors.Is(err, ErrBadBlock) {
		t.Errorf("unmarshal of type image: %v, want ErrBadBlock", err)
	}
}
