package parse

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// jsonBlock is the wire form printed by `cairn debug parse` (docs/cli.md). Text blocks carry
// content, tool blocks name and params; both carry partial.
type jsonBlock struct {
	Type    string             `json:"type"`
	Content *string            `json:"content,omitempty"`
	Name    *string            `json:"name,omitempty"`
	Params  *map[string]string `json:"params,omitempty"`
	Partial bool               `json:"partial"`
}

const (
	jsonText    = "text"
	jsonToolUse = "tool_use"
)

// MarshalJSON writes {"type":"text","content":…,"partial":…} or
// {"type":"tool_use","name":…,"params":{…},"partial":…}. Tags are not HTML-escaped, so the
// output reads like the message; an enclosing encoder that escapes HTML will escape them again.
func (b Block) MarshalJSON() ([]byte, error) {
	j := jsonBlock{Partial: b.Partial}
	switch b.Type {
	case Text:
		j.Type, j.Content = jsonText, &b.Content
	case ToolUse:
		params := b.Params
		if params == nil {
			params = map[string]string{}
		}
		j.Type, j.Name, j.Params = jsonToolUse, &b.Name, &params
	default:
		return nil, fmt.Errorf("%w: block type %d", ErrBadBlock, b.Type)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(j); err != nil {
		return nil, fmt.Errorf("parse: encode block: %w", err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads the form MarshalJSON writes.
func (b *Block) UnmarshalJSON(data []byte) error {
	var j jsonBlock
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("parse: decode block: %w", err)
	}
	switch j.Type {
	case jsonText:
		*b = Block{Type: Text, Partial: j.Partial}
		if j.Content != nil {
			b.Content = *j.Content
		}
	case jsonToolUse:
		*b = Block{Type: ToolUse, Partial: j.Partial, Params: map[string]string{}}
		if j.Name != nil {
			b.Name = *j.Name
		}
		if j.Params != nil && *j.Params != nil {
			b.Params = *j.Params
		}
	default:
		return fmt.Errorf("%w: type %q", ErrBadBlock, j.Type)
	}
	return nil
}
