package treesitter

import (
	"os"
	"testing"
)

// BenchmarkParseGo parses a 60-line Go file in process.
func BenchmarkParseGo(b *testing.B) {
	src, err := os.ReadFile("../testdata/lang/server.go")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse(b.Context(), "server.go", src); err != nil {
			b.Fatal(err)
		}
	}
}
