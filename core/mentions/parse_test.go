package mentions

import (
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	type want struct {
		kind  Kind
		token string
		value string
	}
	tests := []struct {
		name string
		text string
		want []want
	}{
		{"empty", "", nil},
		{"file", "@/a.go", []want{{KindFile, "@/a.go", "a.go"}}},
		{"folder", "@/src/", []want{{KindFolder, "@/src/", "src/"}}},
		{"escaped space", `@/my\ dir/a\ b.txt`, []want{{KindFile, `@/my\ dir/a\ b.txt`, "my dir/a b.txt"}}},
		{"escaped space in folder", `@/my\ dir/`, []want{{KindFolder, `@/my\ dir/`, "my dir/"}}},
		// Only a backslash before a space escapes; any other stays in the path as written, so a
		// Windows-style `@/src\x` reaches the workspace as `src\x` (src/x on Windows).
		{"backslash path", `@/src\x`, []want{{KindFile, `@/src\x`, `src\x`}}},
		{"backslash path with escaped space", `@/my\ dir\a.txt`, []want{{KindFile, `@/my\ dir\a.txt`, `my dir\a.txt`}}},
		{"quoted", `@"/a b/c d.md"`, []want{{KindFile, `@"/a b/c d.md"`, "a b/c d.md"}}},
		{"quoted then punctuation", `@"/a b".)`, []want{{KindFile, `@"/a b"`, "a b"}}},
		{"quoted glued", `@"/a b"c`, nil},
		{"quoted across lines", "@\"/a\nb\"", nil},
		{"quoted bare", `@"/"`, nil},
		{"trailing punctuation", "@/a.go.,;:!?)", []want{{KindFile, "@/a.go", "a.go"}}},
		{"punctuation inside", "@/a.b/c,d.go", []want{{KindFile, "@/a.b/c,d.go", "a.b/c,d.go"}}},
		{"opening bracket kept", "@/a(1).go", []want{{KindFile, "@/a(1).go", "a(1).go"}}},
		{"bare", "@/", nil},
		{"bare with punctuation", "@/.", nil},
		{"double slash", "@//", nil},
		{"dot folder", "@/./", nil},
		{"keywords", "@problems @terminal @git-changes", []want{
			{KindProblems, "@problems", "problems"}, {KindTerminal, "@terminal", "terminal"},
			{KindGitChanges, "@git-changes", "git-changes"}}},
		{"longer word", "@terminals @problems2", nil},
		{"upper case", "@Problems @ABCDEF12", nil},
		{"keyword punctuation", "@problems!", []want{{KindProblems, "@problems", "problems"}}},
		{"keyword then paren", "@problems(", nil},
		{"commit 7", "@abcdef1", []want{{KindCommit, "@abcdef1", "abcdef1"}}},
		{"commit 40", "@" + strings.Repeat("a", 40), []want{{KindCommit, "@" + strings.Repeat("a", 40), strings.Repeat("a", 40)}}},
		{"commit 6", "@abcdef", nil},
		{"commit 41", "@" + strings.Repeat("a", 41), nil},
		{"commit digits", "@1234567", []want{{KindCommit, "@1234567", "1234567"}}},
		{"url", "@https://go.dev/doc/.", []want{{KindURL, "@https://go.dev/doc/", "https://go.dev/doc/"}}},
		{"url http", "@http://x.test/a?b=c&d=(e)", []want{{KindURL, "@http://x.test/a?b=c&d=(e", "http://x.test/a?b=c&d=(e"}}},
		{"url empty", "@https://", nil},
		{"url scheme", "@ftp://x @HTTPS://x @file:///x", nil},
		{"email", "me@example.com", nil},
		{"after letter", "a@/x", nil},
		{"after bracket", "(@/x", nil},
		{"after colon", ":@problems", nil},
		{"after non-ASCII space", "x\u00a0@/x", []want{{KindFile, "@/x", "x"}}},
		{"after newline", "a\n@/x", []want{{KindFile, "@/x", "x"}}},
		{"double at", "@@/x", nil},
		{"at inside path", "@/a@b", []want{{KindFile, "@/a@b", "a@b"}}},
		{"non-ASCII path", "@/ドキュメント/メモ.md", []want{{KindFile, "@/ドキュメント/メモ.md", "ドキュメント/メモ.md"}}},
		{"several", "see @/a and @problems, also x@y and @/b/", []want{
			{KindFile, "@/a", "a"}, {KindProblems, "@problems", "problems"}, {KindFolder, "@/b/", "b/"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []want
			for _, m := range Parse(tt.text) {
				if tt.text[m.Start:m.End] != m.Token {
					t.Errorf("%q: text[%d:%d] = %q", m.Token, m.Start, m.End, tt.text[m.Start:m.End])
				}
				got = append(got, want{m.Kind, m.Token, m.Value})
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Parse(%q)\n got %q\nwant %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestTextsComplete(t *testing.T) {
	keys := []string{"ref-file", "ref-folder", "ref-problems", "ref-terminal", "ref-git-changes", "ref-commit",
		"ref-url", "missing", "outside", "ignored", "read-error", "binary", "truncated", "folder-empty",
		"folder-hidden", "folder-limit", "no-editor", "no-problems", "diagnostics-error", "no-terminal",
		"terminal-empty", "terminal-error", "git-clean", "git-error", "commit-unknown", "git-omitted",
		"url-error", "url-status", "url-not-text", "url-truncated"}
	for _, k := range keys {
		if _, ok := texts.Get()[k]; !ok {
			t.Errorf("texts.md has no section %q", k)
		}
	}
	if len(texts.Get()) != len(keys) {
		t.Errorf("texts.md has %d sections, want %d (update this test with new ones)", len(texts.Get()), len(keys))
	}
}
