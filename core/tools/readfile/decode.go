package readfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cairnhq/cairn/core/helper"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/unicode"
)

// sniffBytes is how much of a file the binary checks look at; it keeps huge files cheap.
const sniffBytes = 64 << 10

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF16BE = []byte{0xFE, 0xFF}
)

// DecodeText turns file bytes into UTF-8 text and names the encoding it used. Order matters:
// a BOM is authoritative; valid UTF-8 (the common case) needs no guessing; NUL bytes without
// a UTF-16 BOM mean binary; anything else is a legacy encoding, which cairn-helper detects
// and decodes (core/convert): the detector and the encodings' tables load there, not in the
// daemon (docs/performance.md, "P5 — the daemon at rest"), and ctx ending kills it. Text the
// helper refuses is ErrBinary; a helper that cannot run is ErrHelper.
func DecodeText(ctx context.Context, data []byte) (text, charset string, err error) {
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
	out, err := helper.Run(ctx, data, "decode-text")
	var refused *helper.RefusedError
	switch {
	case errors.As(err, &refused):
		return "", "", fmt.Errorf("%w: %w", ErrBinary, refused)
	case ctx.Err() != nil:
		return "", "", ctx.Err()
	case err != nil:
		return "", "", fmt.Errorf("%w: %w", ErrHelper, err)
	}
	// The helper writes the encoding's name on the first line, the text after it.
	charset, text, ok := strings.Cut(string(out), "\n")
	if !ok {
		return "", "", fmt.Errorf("%w: decode-text wrote no encoding line", ErrHelper)
	}
	return checkText(text, charset)
}

func decodeWith(enc encoding.Encoding, data []byte, name string) (string, string, error) {
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return "", "", fmt.Errorf("%w: %s: %v", ErrBinary, name, err)
	}
	return checkText(string(out), name)
}

// checkText refuses decoded text that still looks binary.
func checkText(text, name string) (string, string, error) {
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
