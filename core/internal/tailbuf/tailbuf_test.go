package tailbuf

import "testing"

func TestBuffer(t *testing.T) {
	b := New(16)
	if _, err := b.Write([]byte("first line\nsecond line\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Write([]byte("third\n")); err != nil {
		t.Fatal(err)
	}
	// The last 16 bytes are "cond line\nthird\n"; the cut line is dropped whole.
	if got := b.String(); got != "third" {
		t.Errorf("String() = %q, want %q", got, "third")
	}
	b.Reset()
	if _, err := b.Write([]byte("short\n")); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "short" {
		t.Errorf("after Reset, String() = %q, want %q", got, "short")
	}
}
