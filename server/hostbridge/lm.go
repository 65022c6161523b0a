package hostbridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	hostv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/host/v1"

	"github.com/cairnhq/cairn/core/lazy"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/vscodelm"
)

// The editor's language models (the vscode-lm provider, README "Providers"): a chat is one
// request, lm_chat, which the host answers at once (the consent dialog of the first request
// may wait on the user far longer than a request's deadline), then LmChatPart events and one
// LmChatEnd named by the chat id. A cancelled context or a Close sends lm_cancel; the host then
// fires the request's CancellationTokenSource.

// ErrNoLanguageModels is returned when the connected editor does not offer language models
// (an older extension, or a host that is not VS Code).
var ErrNoLanguageModels = errors.New("the connected editor does not offer its language models to Cairn (update the Cairn extension)")

// cancelWait bounds the cancel request a finished or abandoned chat sends.
const cancelWait = 5 * time.Second

func offersLanguageModels(h *Host) bool { return h.hello.GetLanguageModels() }

var _ vscodelm.Bridge = (*Ref)(nil)

// Chat sends a request to a model of the editor connected now (vscodelm.Bridge).
func (f *Ref) Chat(ctx context.Context, req vscodelm.ChatRequest) (vscodelm.ReplyStream, error) {
	h, err := f.lmHost()
	if err != nil {
		return nil, err
	}
	return h.Chat(ctx, req)
}

// Models lists the models of the editor connected now (vscodelm.Bridge).
func (f *Ref) Models(ctx context.Context) ([]vscodelm.Model, error) {
	h, err := f.lmHost()
	if err != nil {
		return nil, err
	}
	return h.Models(ctx)
}

func (f *Ref) lmHost() (*Host, error) {
	h, ok := f.r.Get(f.id)
	switch {
	case !ok:
		return nil, vscodelm.ErrEditorAway
	case !offersLanguageModels(h):
		return nil, ErrNoLanguageModels
	}
	return h, nil
}

// LanguageModelHost returns a connected editor that offers its language models, for a caller
// that names none (the chat's model picker): the one with the smallest id, so repeated calls
// ask the same editor.
func (r *Registry) LanguageModelHost() (*Host, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var best *Host
	for id, h := range r.hosts {
		if offersLanguageModels(h) && (best == nil || id < best.id) {
			best = h
		}
	}
	return best, best != nil
}

// Models lists the editor's language models.
func (h *Host) Models(ctx context.Context) ([]vscodelm.Model, error) {
	if !offersLanguageModels(h) {
		return nil, ErrNoLanguageModels
	}
	resp, err := h.call(ctx, &hostv1.Request{Request: &hostv1.Request_LmModels{LmModels: &hostv1.LmModelsRequest{}}})
	if err != nil {
		return nil, fmt.Errorf("hostbridge: listing the editor's language models: %w", err)
	}
	var out []vscodelm.Model
	for _, m := range resp.GetLmModels().GetModels() {
		out = append(out, vscodelm.Model{ID: m.GetId(), Vendor: m.GetVendor(), Family: m.GetFamily(), Name: m.GetName(),
			MaxInputTokens: int(m.GetMaxInputTokens())})
	}
	return out, nil
}

// Chat sends a request to one of the editor's models; the reply streams back as events.
func (h *Host) Chat(ctx context.Context, req vscodelm.ChatRequest) (vscodelm.ReplyStream, error) {
	c := &lmChat{h: h, id: newID(), notify: make(chan struct{}, 1), done: make(chan struct{})}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, ErrHostGone
	}
	// Registered before the request goes out, so no event of it can arrive unclaimed.
	h.chats[c.id] = c
	h.mu.Unlock()
	if _, err := h.call(ctx, &hostv1.Request{Request: &hostv1.Request_LmChat{LmChat: toLmChat(c.id, req)}}); err != nil {
		h.forgetChat(c.id)
		return nil, fmt.Errorf("hostbridge: language model request: %w", err)
	}
	go func() {
		defer h.r.recoverBug("watching a language model request")
		select {
		case <-ctx.Done():
			c.fail(ctx.Err())
			c.cancel()
		case <-c.done:
		}
	}()
	return c, nil
}

func toLmChat(id string, req vscodelm.ChatRequest) *hostv1.LmChatRequest {
	out := &hostv1.LmChatRequest{ChatId: id, ModelId: req.Model}
	for _, m := range req.Messages {
		role := hostv1.LmRole_LM_ROLE_USER
		if m.Role == vscodelm.RoleAssistant {
			role = hostv1.LmRole_LM_ROLE_ASSISTANT
		}
		lm := &hostv1.LmMessage{Role: role}
		for _, p := range m.Parts {
			switch p.Kind {
			case vscodelm.PartToolCall:
				lm.Parts = append(lm.Parts, &hostv1.LmPart{Part: &hostv1.LmPart_ToolCall{ToolCall: &hostv1.LmToolCall{
					CallId: p.CallID, Name: p.Name, InputJson: p.Input}}})
			case vscodelm.PartToolResult:
				lm.Parts = append(lm.Parts, &hostv1.LmPart{Part: &hostv1.LmPart_ToolResult{ToolResult: &hostv1.LmToolResult{
					CallId: p.CallID, Text: p.Text}}})
			default:
				lm.Parts = append(lm.Parts, &hostv1.LmPart{Part: &hostv1.LmPart_Text{Text: p.Text}})
			}
		}
		out.Messages = append(out.Messages, lm)
	}
	for _, t := range req.Tools {
		out.Tools = append(out.Tools, &hostv1.LmTool{Name: t.Name, Description: t.Description, InputSchemaJson: string(t.Parameters)})
	}
	return out
}

var lmCodes = lazy.Value[map[hostv1.LmErrorCode]vscodelm.Code]{New: func() map[hostv1.LmErrorCode]vscodelm.Code {
	return map[hostv1.LmErrorCode]vscodelm.Code{
		hostv1.LmErrorCode_LM_ERROR_CODE_NO_PERMISSIONS: vscodelm.CodeNoPermissions,
		hostv1.LmErrorCode_LM_ERROR_CODE_BLOCKED:        vscodelm.CodeBlocked,
		hostv1.LmErrorCode_LM_ERROR_CODE_NOT_FOUND:      vscodelm.CodeNotFound,
		hostv1.LmErrorCode_LM_ERROR_CODE_GONE:           vscodelm.CodeGone,
		hostv1.LmErrorCode_LM_ERROR_CODE_CANCELLED:      vscodelm.CodeCancelled,
		hostv1.LmErrorCode_LM_ERROR_CODE_OTHER:          vscodelm.CodeOther,
	}
}}

func (h *Host) chat(id string, end bool) *lmChat {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.chats[id]
	if end {
		delete(h.chats, id)
	}
	return c
}

func (h *Host) forgetChat(id string) { h.chat(id, true) }

func (h *Host) lmPart(p *hostv1.LmChatPart) {
	c := h.chat(p.GetChatId(), false)
	if c == nil {
		return // a chat already closed or cancelled
	}
	if tc := p.GetToolCall(); tc != nil {
		c.push(vscodelm.Reply{ToolCall: &llm.ToolCall{ID: tc.GetCallId(), Name: tc.GetName(), Arguments: tc.GetInputJson()}})
		return
	}
	c.push(vscodelm.Reply{Text: p.GetText()})
}

func (h *Host) lmEnd(e *hostv1.LmChatEnd) {
	c := h.chat(e.GetChatId(), true)
	if c == nil {
		return
	}
	end := &vscodelm.End{InputTokens: e.GetInputTokens(), OutputTokens: e.GetOutputTokens(), Estimated: e.GetEstimated(),
		Message: e.GetMessage()}
	if e.GetCode() != hostv1.LmErrorCode_LM_ERROR_CODE_UNSPECIFIED {
		end.Code = lmCodes.Get()[e.GetCode()]
		if end.Code == "" {
			end.Code = vscodelm.CodeOther
		}
	}
	c.push(vscodelm.Reply{End: end})
}

// lmChat is one language model request streaming back from the editor (vscodelm.ReplyStream).
// Events are queued by the host's receiving goroutine, which never blocks on a slow reader.
type lmChat struct {
	h      *Host
	id     string
	notify chan struct{} // a token when the queue or the state changed; one reader
	done   chan struct{} // closed by Close: the context watcher stops
	// cancelOnce sends at most one lm_cancel (the context's end and Close may both ask).
	cancelOnce sync.Once

	// mu guards queue, ended, drained, err and closed.
	mu      sync.Mutex
	queue   []vscodelm.Reply
	ended   bool  // the End arrived
	drained bool  // the End was read: Recv answers io.EOF
	err     error // the chat failed (host gone, context ended)
	closed  bool
}

func (c *lmChat) wake() {
	select {
	case c.notify <- struct{}{}:
	default:
	}
}

func (c *lmChat) push(r vscodelm.Reply) {
	c.mu.Lock()
	if c.ended || c.err != nil {
		c.mu.Unlock()
		return
	}
	c.queue = append(c.queue, r)
	c.ended = r.End != nil
	c.mu.Unlock()
	c.wake()
}

func (c *lmChat) fail(err error) {
	c.mu.Lock()
	if c.err == nil && !c.ended {
		c.err = err
	}
	c.mu.Unlock()
	c.wake()
}

// Recv returns the next reply: the queued ones first, then the failure, or io.EOF after the
// End.
func (c *lmChat) Recv() (vscodelm.Reply, error) {
	for {
		c.mu.Lock()
		switch {
		case len(c.queue) > 0:
			r := c.queue[0]
			c.queue = c.queue[1:]
			c.drained = r.End != nil
			c.mu.Unlock()
			return r, nil
		case c.drained:
			c.mu.Unlock()
			return vscodelm.Reply{}, io.EOF
		case c.err != nil:
			err := c.err
			c.mu.Unlock()
			return vscodelm.Reply{}, err
		}
		c.mu.Unlock()
		<-c.notify
	}
}

// Close stops the request in the editor when its End has not arrived, and forgets it.
func (c *lmChat) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	running := !c.ended
	if c.err == nil && !c.ended {
		c.err = errors.New("hostbridge: language model request closed")
	}
	c.mu.Unlock()
	close(c.done)
	if running {
		go func() {
			defer c.h.r.recoverBug("cancelling a language model request")
			c.cancel()
		}()
	}
	c.h.forgetChat(c.id)
	c.wake()
	return nil
}

// cancel asks the editor to stop the request, once. A host that is gone has nothing to stop.
func (c *lmChat) cancel() { c.cancelOnce.Do(c.sendCancel) }

func (c *lmChat) sendCancel() {
	c.h.forgetChat(c.id)
	ctx, stop := context.WithTimeout(context.Background(), cancelWait)
	defer stop()
	_, err := c.h.call(ctx, &hostv1.Request{Request: &hostv1.Request_LmCancel{LmCancel: &hostv1.LmCancelRequest{ChatId: c.id}}})
	if err != nil && !errors.Is(err, ErrHostGone) {
		c.h.r.logger().Warn("hostbridge: cancelling a language model request", "chat", c.id, "err", err)
	}
}
