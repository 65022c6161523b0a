package exporter

import (
	"bytes"
	"strings"
	"testing"
)

// TestMainInput: a first line that is no configuration is refused with status 2; a line that
// is no event, or an event of no known kind, is reported on stderr and the rest replayed;
// the end of stdin ends the exporter with 0.
func TestMainInput(t *testing.T) {
	// Nothing to export to: the providers are the no-op ones, the replay the same.
	t.Setenv("OTEL_SDK_DISABLED", "true")
	for _, c := range []struct {
		name, in string
		status   int
		stderr   []string
	}{
		{"no configuration", "", 2, []string{"configuration"}},
		{"a configuration that is no JSON", "version 1\n", 2, []string{"configuration"}},
		{"arguments", "", 2, []string{"usage"}},
		{"events", `{"version":"1","egress":{}}` + "\n" +
			`{"kind":"run.start","span":1,"time":1000,"run":{"TaskID":"t"}}` + "\n" +
			"not an event\n" +
			`{"kind":"what","span":2,"time":1001}` + "\n" +
			`{"kind":"request.end","span":7,"time":1002}` + "\n" +
			`{"kind":"tool.end","span":9,"time":1003,"status":"ok"}` + "\n" +
			`{"kind":"run.end","span":1,"time":1004,"status":"completed"}`, 0,
			[]string{"cannot read", `unknown kind "what"`, "without its request"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var args []string
			if c.name == "arguments" {
				args = []string{"extra"}
			}
			var stderr bytes.Buffer
			if got := Main(args, strings.NewReader(c.in), &stderr); got != c.status {
				t.Errorf("status %d, want %d; stderr:\n%s", got, c.status, &stderr)
			}
			for _, s := range c.stderr {
				if !strings.Contains(stderr.String(), s) {
					t.Errorf("stderr does not say %q:\n%s", s, &stderr)
				}
			}
		})
	}
}
