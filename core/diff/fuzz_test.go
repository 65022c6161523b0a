package diff

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func fuzzSeeds(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), "------- SEARCH\nb\n=======\nB\n+++++++ REPLACE\n")
	f.Add([]byte("a\r\nb\r\n"), "<<<<<<< SEARCH\n  b\n=======\n>>>>>>> REPLACE\n")
	f.Add([]byte("\uFEFFx\ny"), "------- SEARCH\n=======\nz\n+++++++ REPLACE")
	f.Add([]byte(""), "------- SEARCH\n=======\n=======\n+++++++ REPLACE\n")
	f.Add([]byte("a\nb\nc\nd\n"), "------- SEARCH\nd\n=======\n+++++++ REPLACE\n------- SEARCH\na\nx\nc\n=======\nq\n+++++++ REPLACE\n")
	f.Add([]byte("a\nb\n"), "------- SEARCH>\na\n=======\nA\n+++++++ REPLACE>\n------- SEARCH>\nb\n=======\nB")
	f.Add([]byte("b"), "--- SEARCH\n===\n\n")
	f.Add([]byte("a\nb\n"), "<<<<<<< SEARCH>\nb\n=======\n+++++++ REP")
	f.Add([]byte("a\nb\n"), "------- SEARCH\na\n=======\nA\n+++++++ REPLACE\n------- SEARCH\nb\n")
}

func FuzzParseBlocks(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, _ []byte, diff string) {
		blocks, err := ParseBlocks(diff)
		if err != nil {
			var ae *ApplyError
			if blocks != nil || !errors.As(err, &ae) || ae.Message == "" {
				t.Fatalf("error %v with blocks %v", err, blocks)
			}
			return
		}
		if len(blocks) == 0 {
			t.Fatal("success without blocks")
		}
	})
}

func FuzzApply(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, original []byte, diff string) {
		before := bytes.Clone(original)
		res, err := Apply(original, diff)
		if !bytes.Equal(original, before) {
			t.Fatal("Apply modified its input")
		}
		if err != nil {
			if res.Content != nil || res.Edits != nil {
				t.Fatalf("error %v with a result", err)
			}
			return
		}
		again, err := Apply(original, diff)
		if err != nil || !bytes.Equal(again.Content, res.Content) {
			t.Fatalf("not deterministic: %v", err)
		}
		// The preview must agree with the final result on every valid diff.
		// A last line without '\n' is held back by the preview; one newline releases it. A
		// diff that already ends with '\n' gets none: in a block left open at the end, an
		// added newline would be one more (empty) REPLACE line.
		p := NewPreview(original)
		for i := 0; i < len(diff); i += 5 {
			p.Update(diff[:i])
		}
		whole := diff
		if !strings.HasSuffix(whole, "\n") {
			whole += "\n"
		}
		if v := p.Update(whole); v.Err != nil || !bytes.Equal(p.Content(), res.Content) {
			t.Fatalf("preview %q (err %v), apply %q", p.Content(), v.Err, res.Content)
		}
	})
}
