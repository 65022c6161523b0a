package store

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/cairnhq/cairn/core/msg"
)

// wireMessage is msg.Message with its payload tagged by type, so it can be read back.
type wireMessage struct {
	Index       int             `json:"i"`
	Time        time.Time       `json:"t"`
	Type        msg.Type        `json:"y"`
	Kind        msg.Kind        `json:"k"`
	Text        string          `json:"x,omitempty"`
	Partial     bool            `json:"p,omitempty"`
	Images      []string        `json:"img,omitempty"`
	Files       []string        `json:"f,omitempty"`
	PayloadType string          `json:"pt,omitempty"`
	Payload     json.RawMessage `json:"pl,omitempty"`
}

func payloadName(p msg.Payload) string {
	switch p.(type) {
	case *msg.Tool:
		return "tool"
	case *msg.Command:
		return "command"
	case *msg.CommandOutput:
		return "commandOutput"
	case *msg.Followup:
		return "followup"
	case *msg.Completion:
		return "completion"
	case *msg.APIRequest:
		return "apiRequest"
	case *msg.Retry:
		return "retry"
	case *msg.NewTask:
		return "newTask"
	case *msg.Browser:
		return "browser"
	case *msg.MCP:
		return "mcp"
	case *msg.Checkpoint:
		return "checkpoint"
	case *msg.Progress:
		return "progress"
	}
	return ""
}

func newPayload(name string) msg.Payload {
	switch name {
	case "tool":
		return &msg.Tool{}
	case "command":
		return &msg.Command{}
	case "commandOutput":
		return &msg.CommandOutput{}
	case "followup":
		return &msg.Followup{}
	case "completion":
		return &msg.Completion{}
	case "apiRequest":
		return &msg.APIRequest{}
	case "retry":
		return &msg.Retry{}
	case "newTask":
		return &msg.NewTask{}
	case "browser":
		return &msg.Browser{}
	case "mcp":
		return &msg.MCP{}
	case "checkpoint":
		return &msg.Checkpoint{}
	case "progress":
		return &msg.Progress{}
	}
	return nil
}

func fromMsg(m msg.Message) (wireMessage, error) {
	w := wireMessage{Index: m.Index, Time: m.Time, Type: m.Type, Kind: m.Kind, Text: m.Text,
		Partial: m.Partial, Images: m.Images, Files: m.Files}
	if m.Payload != nil {
		name := payloadName(m.Payload)
		if name == "" {
			return w, fmt.Errorf("store: unknown payload %T", m.Payload)
		}
		raw, err := json.Marshal(m.Payload)
		if err != nil {
			return w, fmt.Errorf("store: %w", err)
		}
		w.PayloadType, w.Payload = name, raw
	}
	return w, nil
}

func (w wireMessage) toMsg() (msg.Message, error) {
	m := msg.Message{Index: w.Index, Time: w.Time, Type: w.Type, Kind: w.Kind, Text: w.Text,
		Partial: w.Partial, Images: w.Images, Files: w.Files}
	if w.PayloadType != "" {
		p := newPayload(w.PayloadType)
		if p == nil {
			return m, fmt.Errorf("store: unknown payload type %q", w.PayloadType)
		}
		if err := json.Unmarshal(w.Payload, p); err != nil {
			return m, fmt.Errorf("store: %w", err)
		}
		m.Payload = p
	}
	return m, nil
}
