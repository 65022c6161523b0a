package policy

import (
	_ "embed"
	"strings"
)

// modelText is what the model reads when the policy denies or refuses an action.
//
//go:embed model.md
var modelText string

// ModelText is the tool result the model reads for a denied or refused action: the decision
// line and what to do about it.
func ModelText(r Result) string {
	return strings.TrimSpace(strings.ReplaceAll(modelText, "{{LINE}}", r.Line()))
}
