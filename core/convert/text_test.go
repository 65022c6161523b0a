package convert

import (
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
)

// TestLegacyText: the detector looks where the text stops being UTF-8, so a Latin-1 file whose
// first pages are ASCII is still read as Latin-1, a UTF-8 file with one stray byte stays UTF-8,
// and a Japanese file is found to be Shift-JIS. (read_file's own tests read these through
// cairn-helper, core/tools/readfile.)
func TestLegacyText(t *testing.T) {
	sjis, err := japanese.ShiftJIS.NewEncoder().Bytes([]byte(strings.Repeat("設定ファイルを読み込んでから、サーバーを起動してください。\n", 20)))
	if err != nil {
		t.Fatal(err)
	}
	latin, err := charmap.ISO8859_1.NewEncoder().Bytes([]byte("café crème, déjà vu\n"))
	if err != nil {
		t.Fatal(err)
	}
	ascii := strings.Repeat("plain ascii line\n", 5000)
	utf8 := strings.Repeat("héllo wörld, ça va très bien aujourd'hui\n", 200)
	tests := []struct {
		name, data, want, charset string
	}{
		{"shift-jis", string(sjis), strings.Repeat("設定ファイルを読み込んでから、サーバーを起動してください。\n", 20), "shift_jis"},
		{"latin-1 after pages of ascii", ascii + string(latin), ascii + "café crème, déjà vu\n", "windows-1252"},
		{"utf-8 with one stray byte", utf8 + "\xff" + utf8, utf8 + "\uFFFD" + utf8, "utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, charset, err := LegacyText([]byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if charset != tt.charset {
				t.Errorf("charset = %q, want %q", charset, tt.charset)
			}
			if got != tt.want {
				t.Errorf("text differs: got %d bytes, want %d", len(got), len(tt.want))
			}
		})
	}
}
