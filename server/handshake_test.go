package server

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestHandshakeLine holds the handshake's hand-spelt JSON to what json.Marshal writes: the
// same fields, named alike, read back to the same values, whatever the strings hold.
func TestHandshakeLine(t *testing.T) {
	cases := []Handshake{
		{Address: "unix:///home/ann/.local/share/cairn/daemon.sock", TokenFile: "/home/ann/.local/share/cairn/daemon.token",
			PID: 4242, Version: "1.2.3", Executable: "/opt/cairn/bin/cairn"},
		{Address: "127.0.0.1:39811", TokenFile: `C:\Users\Ann\data\daemon.token`, PID: 1, Version: "dev"},
		{Address: `unix:///tmp/"quoted" \back\ <tag> & ü 日本`, TokenFile: "/tmp/tab\there/new\nline/\x01ctl",
			PID: -7, Version: "v\u2028sep", Executable: "/opt/ünï/cairn"},
	}
	// Every field set, so a field added to Handshake and not to line fails here.
	var full Handshake
	v := reflect.ValueOf(&full).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.String:
			f.SetString(v.Type().Field(i).Name + "-value")
		case reflect.Int:
			f.SetInt(int64(100 + i))
		default:
			t.Fatalf("Handshake.%s is a %s: teach line and this test to write it", v.Type().Field(i).Name, f.Kind())
		}
	}
	cases = append(cases, full)
	for _, h := range cases {
		got, err := h.line()
		if err != nil {
			t.Fatalf("line(%+v): %v", h, err)
		}
		if !bytes.HasSuffix(got, []byte("}\n")) || bytes.Count(got, []byte("\n")) != 1 {
			t.Errorf("line(%+v) = %q, want one line of JSON", h, got)
		}
		want, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		var fromLine, fromMarshal map[string]any
		if err := json.Unmarshal(got, &fromLine); err != nil {
			t.Fatalf("line(%+v) = %q, not JSON: %v", h, got, err)
		}
		if err := json.Unmarshal(want, &fromMarshal); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(fromLine, fromMarshal) {
			t.Errorf("line(%+v) reads back as %v, json.Marshal's as %v", h, fromLine, fromMarshal)
		}
	}
}

// A path that is not UTF-8 cannot be named in JSON (it would come back with U+FFFD in it), so
// the handshake refuses it rather than name a socket or token file that is not there.
func TestHandshakeLineRefusesWhatJSONCannotCarry(t *testing.T) {
	ok := Handshake{Address: "unix:///tmp/d.sock", TokenFile: "/tmp/d.token", PID: 1, Version: "dev"}
	for _, tc := range []struct {
		field string
		set   func(*Handshake)
	}{
		{"address", func(h *Handshake) { h.Address = "unix:///tmp/\xff.sock" }},
		{"token file", func(h *Handshake) { h.TokenFile = "/tmp/\xfe\xff/d.token" }},
		{"executable", func(h *Handshake) { h.Executable = "/opt/\xc3/cairn" }},
	} {
		h := ok
		tc.set(&h)
		if _, err := h.line(); err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("line with a %s that is not UTF-8: err = %v, want one naming the %s", tc.field, err, tc.field)
		}
	}
}
