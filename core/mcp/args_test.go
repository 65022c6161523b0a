package mcp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// CheckArguments refuses what the tool's input schema refuses, with a text naming what is
// wrong, and checks nothing against a schema it cannot resolve (a remote $ref is never loaded)
// or whose draft it does not implement.
func TestCheckArguments(t *testing.T) {
	h, _ := startHub(t, map[string]any{"local": testServerEntry()})
	waitState(t, h, "local connected", status("local", StatusConnected))
	for _, tc := range []struct{ name, tool, args, want string }{
		{"valid", "echo", `{"message":"ok"}`, ""},
		{"missing property", "echo", `{}`, "message"},
		{"wrong type", "echo", `{"message": 3}`, "string"},
		{"not an object", "echo", `[1]`, "object"},
		{"not JSON", "echo", `{`, "not JSON"},
		{"unresolvable schema checks nothing", "remote", `{}`, ""},
		{"local reference followed", "defs", `{"n": 0}`, "minimum"},
		{"local reference valid", "defs", `{"n": 2}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := h.CheckArguments("local", tc.tool, json.RawMessage(tc.args))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (!errors.Is(err, ErrBadArguments) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want ErrBadArguments saying %q", err, tc.want)
			case err != nil && strings.Contains(err.Error(), "validating root"):
				t.Errorf("the text names the validator's own position: %v", err)
			}
		})
	}
}

// resolveSchema takes the drafts the validator implements and refuses the others and what it
// cannot resolve, which CheckArguments then does not check.
func TestResolveSchema(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		ok        bool
	}{
		{"no $schema", `{"type":"object"}`, true},
		{"2020-12", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`, true},
		{"draft-07", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`, true},
		{"draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object"}`, false},
		{"remote reference", `{"properties":{"x":{"$ref":"https://example.com/x.json"}}}`, false},
		{"not JSON", `{`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := resolveSchema(tc.doc)
			if (err == nil) != tc.ok || (rs != nil) != tc.ok {
				t.Errorf("resolved %v, err %v; want usable %v", rs != nil, err, tc.ok)
			}
		})
	}
}
