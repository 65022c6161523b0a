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
	// Cut, when set, makes the record a truncation: only the first Cut messages remain.
	Cut *int `json:"cut,omitempty"`
}

// EncodeMessage is a message's stored form (its JSON record body), for other stores that
// keep the same format, such as the in-memory one.
func EncodeMessage(m msg.Message) ([]byte, error) {
	w, err := fromMsg(m)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(w)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return b, nil
}

// DecodeMessage reads what EncodeMessage wrote.
func DecodeMessage(b []byte) (msg.Message, error) {
	var w wireMessage
	if err := json.Unmarshal(b, &w); err != nil {
		return msg.Message{}, fmt.Errorf("store: %w", err)
	}
	if w.Cut != nil {
		return msg.Message{}, fmt.Errorf("store: a truncation record is not a message: %w", ErrBadRecord)
	}
	return w.toMsg()
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
