package codedefs

import (
	"context"
	"os"
	"testing"
)

// BenchmarkParseGo parses a 60-line Go file.
func BenchmarkParseGo(b *testing.B) {
	src, err := os.ReadFile("testdata/lang/server.go")
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

// BenchmarkFolder outlines the 17 testdata files, one per language.
func BenchmarkFolder(b *testing.B) {
	entries, err := os.ReadDir("testdata/lang")
	if err != nil {
		b.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for b.Loop() {
		if _, err := Folder(context.Background(), "testdata/lang", names); err != nil {
			b.Fatal(err)
		}
	}
}
