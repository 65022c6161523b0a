package diff

import "testing"

func TestApplyWholeFile(t *testing.T) {
	tests := []struct {
		name, original, content, want string
	}{
		{"new file", "", "a\nb\n", "a\nb\n"},
		{"lf stays lf", "x\n", "a\r\nb\n", "a\nb\n"},
		{"crlf original", "x\r\ny\r\n", "a\nb\n", "a\r\nb\r\n"},
		{"crlf content into crlf", "x\r\n", "a\r\nb", "a\r\nb"},
		{"bom kept", "\uFEFFx\n", "a\n", "\uFEFFa\n"},
		{"bom not doubled", "\uFEFFx\n", "\uFEFFa\n", "\uFEFFa\n"},
		{"bom dropped from content of a plain file", "x\n", "\uFEFFa\n", "a\n"},
		{"empty content gives empty file", "\uFEFFx\r\n", "", ""},
		{"no final newline kept as written", "x\n", "a", "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(ApplyWholeFile([]byte(tt.original), tt.content)); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestStripFences(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "a\nb\n", "a\nb\n"},
		{"wrapped", "```\na\nb\n```\n", "a\nb\n"},
		{"wrapped with language", "```go\npackage p\n```", "package p\n"},
		{"blank lines around", "\n```ts\nx\n```\n\n", "x\n"},
		{"crlf", "```\r\na\r\n```\r\n", "a\r\n"},
		{"four backticks around inner fences", "````md\n```\ncode\n```\n````\n", "```\ncode\n```\n"},
		{"opening only", "```go\nx\n", "```go\nx\n"},
		{"closing only", "x\n```\n", "x\n```\n"},
		{"markdown starting and ending with code blocks", "```sh\nls\n```\ntext\n```sh\npwd\n```\n", "```sh\nls\n```\ntext\n```sh\npwd\n```\n"},
		{"fence alone", "```\n", "```\n"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StripFences(tt.in); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
