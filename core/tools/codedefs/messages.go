package codedefs

import (
	_ "embed"
	"fmt"
	"strings"
)

// messages.md holds every model-facing sentence of the tool, one `## key` section each.
//
//go:embed messages.md
var messagesMD string

//go:embed description.md
var description string

var messages = parseSections(messagesMD)

func parseSections(md string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split("\n"+md, "\n## ")[1:] {
		key, body, _ := strings.Cut(part, "\n")
		out[strings.TrimSpace(key)] = strings.TrimSpace(body)
	}
	return out
}

// message formats the section key; a missing key is a programming error caught by tests.
func message(key string, args ...any) string {
	text, ok := messages[key]
	if !ok {
		return "codedefs: missing message " + key
	}
	if len(args) == 0 {
		return text
	}
	return fmt.Sprintf(text, args...)
}
