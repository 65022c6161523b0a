package search

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
	//go:embed param_regex.md
	paramRegex string
	//go:embed param_file_pattern.md
	paramFilePattern string
	//go:embed found.md
	foundText string
	//go:embed more.md
	moreText string
	//go:embed cut.md
	cutText string
	//go:embed blocked.md
	blockedText string
	//go:embed badregex.md
	badRegexText string
	//go:embed badglob.md
	badGlobText string
	//go:embed notfound.md
	notFoundText string
	//go:embed denied.md
	deniedText string
)

func init() {
	for _, s := range []*string{&description, &paramPath, &paramRegex, &paramFilePattern, &foundText,
		&moreText, &cutText, &blockedText, &badRegexText, &badGlobText, &notFoundText, &deniedText} {
		*s = strings.TrimSpace(*s)
	}
}
