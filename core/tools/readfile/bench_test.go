package readfile

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/text/encoding/japanese"
)

// BenchmarkDecodeUTF8 is the common case: a 1 MB valid UTF-8 file.
func BenchmarkDecodeUTF8(b *testing.B) {
	data := []byte(strings.Repeat("func main() { fmt.Println(\"héllo\") }\n", 1<<20/38))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := DecodeText(context.Background(), data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeShiftJIS is a 1 MB Shift-JIS file: cairn-helper detects its charset and
// decodes it, the process start included.
func BenchmarkDecodeShiftJIS(b *testing.B) {
	data, err := japanese.ShiftJIS.NewEncoder().Bytes([]byte(strings.Repeat(japaneseText, 1<<20/300)))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := DecodeText(context.Background(), data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSlice cuts the default 2,000 lines out of a 100,000-line file.
func BenchmarkSlice(b *testing.B) {
	text := numbered(100_000)
	for b.Loop() {
		Slice(text, 50_000, 0, DefaultLineLimit)
	}
}
