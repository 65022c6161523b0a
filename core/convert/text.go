package convert

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/saintfish/chardet"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
)

// DOCXText returns the paragraphs of a Word document's main body, one per line. Only
// word/document.xml is read: headers, footers and comments are left out.
func DOCXText(data []byte) (string, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return "", fmt.Errorf("docx: %w", err)
	}
	f, err := zr.Open("word/document.xml")
	if err != nil {
		return "", fmt.Errorf("docx: %w", err)
	}
	text, err := wordParagraphs(f)
	_ = f.Close() // an entry of an in-memory zip, only read from: closing it loses nothing
	if err != nil {
		return "", fmt.Errorf("docx: %w", err)
	}
	return text, nil
}

// wordParagraphs reads WordprocessingML and returns its text, one paragraph per line.
func wordParagraphs(r io.Reader) (string, error) {
	const wordML = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	var b strings.Builder
	dec := xml.NewDecoder(r)
	inText := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space != wordML {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = true
			case "tab":
				b.WriteByte('\t')
			case "br", "cr":
				b.WriteByte('\n')
			}
		case xml.EndElement:
			if t.Name.Space != wordML {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				b.WriteByte('\n')
			}
		case xml.CharData:
			if inText {
				b.Write(t)
			}
		}
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// sniffBytes is how much of the text the charset detector looks at: its statistics settle
// well before that, and it keeps huge files cheap.
const sniffBytes = 64 << 10

// LegacyText decodes text that is not valid UTF-8 and returns it as UTF-8 with the WHATWG
// name of the encoding it was read in. The detector looks at the bytes around the first
// invalid sequence, since a Latin-1 file may be pure ASCII for its first pages and a UTF-8
// file with one stray byte should stay UTF-8; what it cannot place is read as windows-1252,
// a Latin-1 superset that maps every byte. Bytes the chosen encoding refuses are an error.
func LegacyText(data []byte) (text, charset string, err error) {
	off := firstInvalid(data)
	lo := max(0, off-sniffBytes/2)
	enc, name := detect(data[lo:min(len(data), lo+sniffBytes)])
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", name, err)
	}
	return string(out), name, nil
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
