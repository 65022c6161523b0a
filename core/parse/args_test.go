package parse

import (
	"encoding/json"
	"maps"
	"testing"
)

func TestArgs(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want map[string]string
		done bool
	}{
		{"empty", ``, map[string]string{}, false},
		{"open", `{`, map[string]string{}, false},
		{"empty object", ` { } `, map[string]string{}, true},
		{"key cut", `{"pa`, map[string]string{}, false},
		{"before value", `{"path": `, map[string]string{}, false},
		{"value streaming", `{"path": "src/ma`, map[string]string{"path": "src/ma"}, false},
		{"value closed", `{"path": "src/main.go"`, map[string]string{"path": "src/main.go"}, false},
		{"two values", `{"path":"a.go","content":"line 1\nli`, map[string]string{"path": "a.go", "content": "line 1\nli"}, false},
		{"complete", `{"path":"a.go","content":"x\ty"}`, map[string]string{"path": "a.go", "content": "x\ty"}, true},
		{"escape cut", `{"c":"a\`, map[string]string{"c": "a"}, false},
		{"unicode cut", `{"c":"h\u00`, map[string]string{"c": "h"}, false},
		{"unicode", `{"c":"h\u00e9llo \"q\""}`, map[string]string{"c": "héllo \"q\""}, true},
		{"surrogate pair", `{"c":"\ud83d\ude00"}`, map[string]string{"c": "😀"}, true},
		{"surrogate cut", `{"c":"x\ud83d\ude`, map[string]string{"c": "x"}, false},
		{"utf8 cut", "{\"c\":\"h\xc3", map[string]string{"c": "h"}, false},
		{"number pending", `{"n": 12`, map[string]string{}, false},
		{"number", `{"n": 12, "b": true, "z": null}`, map[string]string{"n": "12", "b": "true"}, true},
		{"object value", `{"o": {"a": [1, "}"]}, "p": "x"}`, map[string]string{"o": `{"a":[1,"}"]}`, "p": "x"}, true},
		{"object cut", `{"o": {"a": [1`, map[string]string{}, false},
		{"repeated key", `{"p":"first","p":"second"}`, map[string]string{"p": "first"}, true},
		{"not an object", `["a"]`, map[string]string{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, done := Args(tt.in)
			if !maps.Equal(got, tt.want) || done != tt.done {
				t.Errorf("Args(%q) = %q, %v; want %q, %v", tt.in, got, done, tt.want, tt.done)
			}
		})
	}
}

// TestArgsPrefixes feeds every prefix of complete arguments: a value never shrinks or changes
// once shown (only grows), and the whole text decodes as encoding/json does.
func TestArgsPrefixes(t *testing.T) {
	full := `{"path": "dir/file.go", "content": "package x\n\n// h\u00e9 \"quoted\" \\ tab\t\ud83d\ude00\nfunc f() {}\n", "n": 3}`
	var want map[string]any
	if err := json.Unmarshal([]byte(full), &want); err != nil {
		t.Fatal(err)
	}
	prev := map[string]string{}
	for i := 0; i <= len(full); i++ {
		got, done := Args(full[:i])
		for k, v := range prev {
			if len(got[k]) < len(v) || got[k][:len(v)] != v {
				t.Fatalf("prefix %d: %s went from %q to %q", i, k, v, got[k])
			}
		}
		if done != (i == len(full)) {
			t.Fatalf("prefix %d: done = %v", i, done)
		}
		prev = got
	}
	if prev["path"] != want["path"] || prev["content"] != want["content"] || prev["n"] != "3" {
		t.Errorf("final = %q, want %v", prev, want)
	}
}
