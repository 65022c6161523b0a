package servertest

import (
	"slices"

	hostv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/host/v1"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// EditorModel is a language model a fake editor offers (the vscode-lm provider, README
// "Providers"). Play answers one chat: it sends the reply's parts and returns its end;
// cancelled is closed when the daemon cancels the chat.
type EditorModel struct {
	Model *hostv1.LmModel
	Play  func(req *hostv1.LmChatRequest, send func(*hostv1.LmChatPart), cancelled <-chan struct{}) *hostv1.LmChatEnd
}

// ConnectLMHost opens the bridge as a window that offers model.
func (e *Env) ConnectLMHost(clientID string, model *EditorModel) *Host {
	e.T.Helper()
	return e.connectHost(clientID, model)
}

// Cancelled reports whether the daemon cancelled the chat with the id.
func (h *Host) Cancelled(chatID string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Contains(h.LmCancelled, chatID)
}

// Requests returns the chat requests the host got.
func (h *Host) Requests() []*hostv1.LmChatRequest {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.LmRequests)
}

func (h *Host) event(ev *hostv1.Event) {
	h.send(&cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Event{Event: ev}})
}

func (h *Host) handleLM(req *hostv1.Request) {
	switch r := req.Request.(type) {
	case *hostv1.Request_LmModels:
		h.respond(req.GetId(), &hostv1.Response{Result: &hostv1.Response_LmModels{LmModels: &hostv1.LmModelsResult{
			Models: []*hostv1.LmModel{h.model.Model}}}})
	case *hostv1.Request_LmCancel:
		h.mu.Lock()
		id := r.LmCancel.GetChatId()
		h.LmCancelled = append(h.LmCancelled, id)
		if c, ok := h.chats[id]; ok {
			close(c)
			delete(h.chats, id)
		}
		h.mu.Unlock()
		h.respond(req.GetId(), empty())
	case *hostv1.Request_LmChat:
		id := r.LmChat.GetChatId()
		cancelled := make(chan struct{})
		h.mu.Lock()
		h.LmRequests = append(h.LmRequests, r.LmChat)
		h.chats[id] = cancelled
		h.mu.Unlock()
		h.respond(req.GetId(), empty())
		send := func(p *hostv1.LmChatPart) {
			p.ChatId = id
			h.event(&hostv1.Event{Event: &hostv1.Event_LmPart{LmPart: p}})
		}
		end := h.model.Play(r.LmChat, send, cancelled)
		end.ChatId = id
		h.event(&hostv1.Event{Event: &hostv1.Event_LmEnd{LmEnd: end}})
	}
}
