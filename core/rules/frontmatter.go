package rules

import (
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"
)

// frontmatter is the YAML header a rule file may start with. Only the keys below mean
// something; others (description, …) are accepted and ignored.
type frontmatter struct {
	// Paths are workspace-relative globs: the rule applies only when the task touched a
	// matching file. A single string or a list.
	Paths stringList `yaml:"paths"`
	// Globs and AlwaysApply are Cursor's .mdc keys. Globs is a list or a comma-separated
	// string.
	Globs       stringList `yaml:"globs"`
	AlwaysApply *bool      `yaml:"alwaysApply"`
}

// stringList decodes a YAML string (split at commas) or a list of strings.
type stringList []string

func (s *stringList) UnmarshalYAML(n *yaml.Node) error {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return nil
		}
		for _, part := range strings.Split(n.Value, ",") {
			if p := strings.TrimSpace(part); p != "" {
				*s = append(*s, p)
			}
		}
		return nil
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode {
				return fmt.Errorf("line %d: expected a glob string", item.Line)
			}
			if p := strings.TrimSpace(item.Value); p != "" {
				*s = append(*s, p)
			}
		}
		return nil
	}
	return fmt.Errorf("line %d: expected a glob or a list of globs", n.Line)
}

// SplitFrontmatter separates a leading `---` YAML block from the body (trimmed). ok is false
// when the text has no complete frontmatter block (then body is the text unchanged). Rule
// files and skills (core/skills) share it.
func SplitFrontmatter(text string) (header, body string, ok bool) {
	rest, found := strings.CutPrefix(text, "---\n")
	if !found {
		return "", text, false
	}
	if strings.HasPrefix(rest, "---") && (len(rest) == 3 || rest[3] == '\n') {
		return "", strings.TrimSpace(rest[3:]), true
	}
	end := strings.Index(rest, "\n---")
	for end >= 0 {
		after := rest[end+4:]
		if after == "" || after[0] == '\n' {
			return rest[:end], strings.TrimSpace(after), true
		}
		next := strings.Index(after, "\n---")
		if next < 0 {
			break
		}
		end += 4 + next
	}
	return "", text, false
}

// applyFrontmatter reads the rule's frontmatter into Paths, strips it from Content and
// validates the globs. A header that does not parse leaves the rule whole, applying always,
// with Problem saying why: a typo must not silently drop a rule.
func applyFrontmatter(r *Rule, cursor bool) {
	header, body, ok := SplitFrontmatter(r.Content)
	if !ok {
		return
	}
	var fm frontmatter
	if err := yaml.Unmarshal([]byte(header), &fm); err != nil {
		r.Problem = "frontmatter is not valid YAML (" + err.Error() + "); the rule applies everywhere"
		return
	}
	r.Content = body
	globs := append(stringList(nil), fm.Paths...)
	if cursor {
		if fm.AlwaysApply != nil && *fm.AlwaysApply {
			globs = nil // alwaysApply wins over globs, as in Cursor
		} else {
			globs = append(globs, fm.Globs...)
		}
	}
	for _, g := range globs {
		g = cleanGlob(g)
		if !doublestar.ValidatePattern(g) {
			r.Problem = fmt.Sprintf("glob %q is not valid; the rule applies everywhere", g)
			r.Paths = nil
			return
		}
		r.Paths = append(r.Paths, g)
	}
}

// cleanGlob makes a glob workspace-relative: no leading "./" or "/".
func cleanGlob(g string) string {
	g = strings.TrimSpace(strings.ReplaceAll(g, `\`, "/"))
	g = strings.TrimPrefix(g, "./")
	return strings.TrimLeft(g, "/")
}

// matchGlob reports whether a workspace-relative slash path matches a glob. A glob without a
// slash matches the base name at any depth ("*.go" matches "cmd/main.go"), the way ignore
// files treat such patterns; any other glob matches the whole path.
func matchGlob(glob, p string) bool {
	if !strings.Contains(glob, "/") {
		if ok, _ := doublestar.Match(glob, path.Base(p)); ok {
			return true
		}
	}
	ok, _ := doublestar.Match(glob, p)
	return ok
}
