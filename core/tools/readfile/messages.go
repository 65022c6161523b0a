package readfile

import (
	_ "embed"

	"github.com/cairnhq/cairn/core/tools"
)

// messages.md holds every model-facing sentence of the tool, one `## key` section each.
//
//go:embed messages.md
var messagesMD string

//go:embed description.md
var description string

var messages = tools.Texts{MD: &messagesMD}

// message formats the section key of messages.md.
func message(key string, args ...any) string { return messages.Format(key, args...) }
