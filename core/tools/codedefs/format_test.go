package codedefs

import "testing"

func TestFormat(t *testing.T) {
	tests := []struct {
		name  string
		files []File
		want  string
	}{
		{"empty", nil, NoDefinitions},
		{"only files without definitions", []File{{Name: "a.go"}}, NoDefinitions},
		{
			"adjacent lines share a block, gaps get separators, same line once",
			[]File{
				{Name: "a.go", Defs: []Definition{
					{Line: 3, Text: "type A struct{}"},
					{Line: 4, Text: "type B struct{}"},
					{Line: 9, Text: "func F() {}"},
					{Line: 9, Text: "func F() {}"},
				}},
				{Name: "empty.go"},
				{Name: "b.py", Defs: []Definition{{Line: 1, Text: "def g():"}}},
			},
			"a.go\n|----\n│type A struct{}\n│type B struct{}\n|----\n│func F() {}\n|----\n\n" +
				"b.py\n|----\n│def g():\n|----",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Format(tt.files); got != tt.want {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
