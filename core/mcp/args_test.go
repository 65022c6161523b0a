package mcp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// CheckArguments refuses what the tool's input schema refuses, with a text naming what is
// wrong, and checks nothing against a schema it cannot resolve (a remote $ref is never loaded).
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
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := h.CheckArguments("local", tc.tool, json.RawMessage(tc.args))
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (!errors.Is(err, ErrBadArguments) || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want ErrBadArguments saying %q", err, tc.want)
			}
		})
	}
}
