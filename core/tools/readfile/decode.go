package readfile

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/saintfish/chardet"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"
)

// sniffBytes is how much of a file the binary check and the charset detector look at; the
// detector's statistics settle well before that, and it keeps huge files cheap.
const sniffBytes = 64 << 10

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// DecodeText turns file bytes into UTF-8 text and names the encoding it used. Order matters:
// a BOM is authoritative; valid UTF-8 (the common case) needs no guessing; NUL bytes without
// a UTF-16 BOM mean binary; anything else goes to the charset detector, with windows-1252
// (a Latin-1 superset that maps every byte) as the fallback for text it cannot place.
func DecodeText(data []byte) (text, charset string, err error) {
	switch {
	case bytes.HasPrefix(data, bomUTF8):
		data = data[len(bomUTF8):]
		if !utf8.Valid(data) {
			return "", "", ErrBinary
		}
		return string(data), "UTF-8", nil
	case bytes.HasPrefix(data, bomUTF16LE):
		return decodeWith(unicode.UTF16(unicode.LittleEndian, unicode.ExpectBOM), data, "UTF-16LE")
	case bytes.HasPrefix(data, bomUTF16BE):
		return decodeWith(unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM), data, "UTF-16BE")
	}
	sample := data[:min(len(data), sniffBytes)]
	if bytes.IndexByte(sample, 0) >= 0 || controlRatio(sample) > 0.1 {
		return "", "", ErrBinary
	}
	if utf8.Valid(data) {
		return string(data), "UTF-8", nil
	}
	// Ask the detector about the bytes around the first invalid sequence: a Latin-1 file may
	// be pure ASCII for its first pages, and a UTF-8 file with one stray byte should stay UTF-8.
	off := firstInvalid(data)
	lo := max(0, off-sniffBytes/2)
	enc, name := detect(data[lo:min(len(data), lo+sniffBytes)])
	return decodeWith(enc, data, name)
}

func firstInvalid(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// detect picks an encoding for non-UTF-8 text.
func detect(sample []byte) (encoding.Encoding, string) {
	res, err := chardet.NewTextDetector().DetectBest(sample)
	if err == nil && res.Confidence >= 10 {
		// chardet uses ICU's names; WHATWG's index knows all of them but "GB-18030".
		for _, label := range []string{res.Charset, strings.ReplaceAll(res.Charset, "-", "")} {
			if enc, err := htmlindex.Get(label); err == nil && enc != nil {
				name, _ := htmlindex.Name(enc)
				return enc, name
			}
		}
	}
	return charmap.Windows1252, "windows-1252"
}

func decodeWith(enc encoding.Encoding, data []byte, name string) (string, string, error) {
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return "", "", fmt.Errorf("%w: %s: %v", ErrBinary, name, err)
	}
	text := string(out)
	sample := text[:min(len(text), sniffBytes)]
	if strings.IndexByte(sample, 0) >= 0 || controlRatio([]byte(sample)) > 0.1 {
		return "", "", ErrBinary
	}
	return text, name, nil
}

// controlRatio is the share of C0 control bytes that text files do not use (everything but
// tab, newline, vertical tab, form feed, carriage return and escape, which logs with colours
// contain).
func controlRatio(b []byte) float64 {
	if len(b) == 0 {
		return 0
	}
	n := 0
	for _, c := range b {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' && c != 0x1b {
			n++
		}
	}
	return float64(n) / float64(len(b))
}
