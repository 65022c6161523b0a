package search

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeCorpus builds a small project that exercises every filter ripgrep applies by default:
// a git repository with nested .gitignore files and negations, a .ignore file, hidden files
// and folders, binary files, a symlink, a build folder (searched: not a listing), CRLF text
// and files without a final newline.
func writeCorpus(t testing.TB, root string) {
	t.Helper()
	files := map[string]string{
		".git/HEAD":              "ref: refs/heads/main\n",
		".gitignore":             "*.log\n/generated/\nbuild/cache/\n",
		".ignore":                "skip_me.go\n",
		".hidden.go":             "func main() {}\n",
		".config/settings.go":    "func main() {}\n",
		"skip_me.go":             "func main() {}\n",
		"app.log":                "ERROR: func main failed\n",
		"generated/gen.go":       "func main() {}\n",
		"build/main.go":          "package build\n\nfunc main() {\n\treturn\n}\n",
		"build/cache/c.go":       "func main() {}\n",
		"cmd/tool/main.go":       "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n",
		"cmd/tool/.gitignore":    "*.tmp.go\n!keep.tmp.go\n",
		"cmd/tool/x.tmp.go":      "func main() {}\n",
		"cmd/tool/keep.tmp.go":   "func main() {}\n",
		"pkg/errs/errors.go":     "package errs\n\n// ParseError is returned by Parse.\ntype ParseError struct{}\n\nfunc (e *ParseError) Error() string { return \"parse\" }\n\nvar ErrDeadline = NewTimeoutError(\"Deadline exceeded\")\n",
		"pkg/errs/timeout.go":    "package errs\n\nfunc NewTimeoutError(s string) error {\n\treturn nil // deadline handling\n}\n",
		"pkg/crlf.txt":           "first line\r\nfunc main() {}\r\nlast DEADLINE\r\n",
		"pkg/nonl.txt":           "no newline at the end: func main()",
		"docs/readme.md":         "# Title\n\nCall `func main()` to start.\nA DeadLine is a deadline.\n",
		"docs/notes.txt":         "TODO: write notes\n\n\nTODO: more\n",
		"bin/data.bin":           "func main()\x00\x01\x02 binary",
		"bin/late.bin":           strings.Repeat("x", 100) + "\x00func main()",
		"src/a/b/c/deep.go":      "package c\n\nfunc helper() {}\nfunc main() {}\nfunc other() {}\n",
		"src/many.go":            manyLines(),
		"weird name/file one.go": "func main() { /* spaced */ }\n",
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(root, "cmd/tool/main.go"), filepath.Join(root, "src/link.go")); err != nil {
		t.Fatal(err)
	}
}

func manyLines() string {
	var b strings.Builder
	for i := range 40 {
		if i%3 == 0 {
			fmt.Fprintf(&b, "func f%d() { deadline() }\n", i)
		} else {
			fmt.Fprintf(&b, "// filler %d\n", i)
		}
	}
	return b.String()
}
