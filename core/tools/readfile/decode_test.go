package readfile

import (
	"context"
	"errors"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/unicode"
)

const (
	japaneseText = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。" +
		"何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。\n" +
		"設定ファイルを読み込んでから、サーバーを起動してください。\n"
	chineseText = "这是一个用于测试编码检测的简单中文文本。我们需要足够多的汉字，" +
		"这样检测器才能可靠地判断出文件使用的是国标编码。请在启动服务器之前读取配置文件。\n"
	frenchText = "Le cœur a ses raisons que la raison ne connaît point. Déjà l'été; " +
		"où êtes-vous, garçon? Ça déménage à côté du château.\n"
)

func encode(t *testing.T, enc encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := enc.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecodeText(t *testing.T) {
	utf16le := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM)
	utf16be := unicode.UTF16(unicode.BigEndian, unicode.UseBOM)
	tests := []struct {
		name    string
		data    []byte
		want    string
		charset string
		err     error
	}{
		{name: "utf-8", data: []byte("héllo wörld\n"), want: "héllo wörld\n", charset: "UTF-8"},
		{name: "empty", data: nil, want: "", charset: "UTF-8"},
		{name: "utf-8 bom stripped", data: append([]byte{0xEF, 0xBB, 0xBF}, "a=1\n"...), want: "a=1\n", charset: "UTF-8"},
		{name: "utf-16le bom", data: encode(t, utf16le, "name: ÿ €\n"), want: "name: ÿ €\n", charset: "UTF-16LE"},
		{name: "utf-16be bom", data: encode(t, utf16be, "name: ÿ €\n"), want: "name: ÿ €\n", charset: "UTF-16BE"},
		{name: "shift-jis", data: encode(t, japanese.ShiftJIS, strings.Repeat(japaneseText, 3)), want: strings.Repeat(japaneseText, 3), charset: "shift_jis"},
		{name: "gbk", data: encode(t, simplifiedchinese.GBK, strings.Repeat(chineseText, 3)), want: strings.Repeat(chineseText, 3), charset: "gb18030"},
		{name: "latin-1", data: encode(t, charmap.ISO8859_1, strings.ReplaceAll(frenchText, "œ", "oe")), want: strings.ReplaceAll(frenchText, "œ", "oe"), charset: "windows-1252"},
		{name: "latin-1 late in an ascii file", data: append([]byte(strings.Repeat("plain ascii line\n", 5000)), encode(t, charmap.ISO8859_1, "café crème\n")...), want: strings.Repeat("plain ascii line\n", 5000) + "café crème\n", charset: "windows-1252"},
		{name: "nul bytes", data: []byte("ELF\x00\x01\x02binary"), err: ErrBinary},
		{name: "control bytes", data: []byte("\x01\x02\x03\x04\x05\x06\x07\x08abc\x0e\x0f\x10\x11"), err: ErrBinary},
		{name: "ansi colours are text", data: []byte("\x1b[31mred\x1b[0m\n"), want: "\x1b[31mred\x1b[0m\n", charset: "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, charset, err := DecodeText(context.Background(), tt.data)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if charset != tt.charset {
				t.Errorf("charset = %q, want %q", charset, tt.charset)
			}
			if got != tt.want {
				t.Errorf("text = %q, want %q", got, tt.want)
			}
		})
	}
}
