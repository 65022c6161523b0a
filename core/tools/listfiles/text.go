package listfiles

import (
	_ "embed"
	"strings"
)

// Model-facing text, written once and embedded (house rule 15).
var (
	//go:embed description.md
	description string
	//go:embed param_path.md
	paramPath string
	//go:embed param_recursive.md
	paramRecursive string
	//go:embed blocked.md
	blockedText string
	//go:embed refused.md
	refusedText string
	//go:embed notfound.md
	notFoundText string
	//go:embed truncated.md
	truncatedText string
	//go:embed empty.md
	emptyText string
	//go:embed denied.md
	deniedText string
)

func init() {
	for _, s := range []*string{&description, &paramPath, &paramRecursive, &blockedText, &refusedText,
		&notFoundText, &truncatedText, &emptyText, &deniedText} {
		*s = strings.TrimSpace(*s)
	}
}
