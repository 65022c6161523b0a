package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// subagentsRow is the JSON text of a subagents row (core/msg.Subagents).
type subagentsRow struct {
	Children []struct {
		Prompt   string  `json:"prompt"`
		Status   string  `json:"status"`
		Requests int     `json:"requests"`
		Cost     float64 `json:"cost"`
		LastTool string  `json:"lastTool"`
		Error    string  `json:"error"`
	} `json:"children"`
}

func decodeSubagents(text string) (subagentsRow, bool) {
	var r subagentsRow
	return r, json.Unmarshal([]byte(text), &r) == nil
}

// showSubagents prints what changed in a subagents row since old ("" for a new row): a line
// per child when it starts and when it ends.
func (p *printer) showSubagents(m *cairnv1.Message, old string) {
	now, ok := decodeSubagents(m.GetText())
	if !ok {
		return
	}
	before, _ := decodeSubagents(old)
	p.endLine()
	for i, c := range now.Children {
		n := i + 1
		if i >= len(before.Children) {
			p.out("  ⇉ subagent %d started: %s\n", n, clip(c.Prompt, 80))
		}
		was := ""
		if i < len(before.Children) {
			was = before.Children[i].Status
		}
		if c.Status == was || c.Status == "running" {
			continue
		}
		line := fmt.Sprintf("  ⇉ subagent %d %s · %d requests · $%.4f", n, c.Status, c.Requests, c.Cost)
		if c.LastTool != "" {
			line += " · last: " + c.LastTool
		}
		if c.Error != "" {
			line += " · " + clip(c.Error, 120)
		}
		p.out("%s\n", line)
	}
}

// clip is s's first line, cut to limit runes.
func clip(s string, limit int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit]) + "…"
	}
	return s
}
