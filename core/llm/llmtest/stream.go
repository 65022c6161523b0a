package llmtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// wireRequest is the part of an OpenAI chat request the fake reads.
type wireRequest struct {
	Model               string `json:"model"`
	MaxTokens           int    `json:"max_tokens"`
	MaxCompletionTokens int    `json:"max_completion_tokens"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	ReasoningEffort string `json:"reasoning_effort"`
	Tools           []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID       string `json:"id"`
			Function struct {
				Name      string `json:"name"`
				Arguments string `json:"arguments"`
			} `json:"function"`
		} `json:"tool_calls"`
	} `json:"messages"`
}

func decodeRequest(r *http.Request) (Request, error) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return Request{}, fmt.Errorf("reading body: %w", err)
	}
	var wr wireRequest
	if err := json.Unmarshal(raw, &wr); err != nil {
		return Request{Raw: raw}, fmt.Errorf("decoding body: %w", err)
	}
	req := Request{
		Model:        wr.Model,
		MaxTokens:    max(wr.MaxTokens, wr.MaxCompletionTokens),
		IncludeUsage: wr.StreamOptions != nil && wr.StreamOptions.IncludeUsage,
		Raw:          raw,

		ReasoningEffort: wr.ReasoningEffort,
	}
	for _, t := range wr.Tools {
		req.Tools = append(req.Tools, t.Function.Name)
	}
	for i, m := range wr.Messages {
		msg := Message{Role: m.Role, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
		// content is a string, or an array of {type: text|image_url} parts.
		var text string
		var parts []struct {
			Type     string `json:"type"`
			Text     string `json:"text"`
			ImageURL struct {
				URL string `json:"url"`
			} `json:"image_url"`
		}
		switch {
		case len(m.Content) == 0 || string(m.Content) == "null":
		case json.Unmarshal(m.Content, &text) == nil:
			msg.Text = text
		case json.Unmarshal(m.Content, &parts) == nil:
			var texts []string
			for _, p := range parts {
				switch p.Type {
				case "text":
					texts = append(texts, p.Text)
				case "image_url":
					msg.Images = append(msg.Images, p.ImageURL.URL)
				}
			}
			msg.Text = strings.Join(texts, "\n")
		default:
			return req, fmt.Errorf("message %d: content is neither a string nor parts", i)
		}
		req.Messages = append(req.Messages, msg)
	}
	return req, nil
}

// sse writes the events of one streamed response.
type sse struct {
	w       http.ResponseWriter
	flusher http.Flusher
	id      string
	model   string
	created int64
}

func (e *sse) event(v any) {
	// Real providers do not HTML-escape, and tests grepping raw events should see "<".
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // only fixed shapes are encoded here
		b.Reset()
		b.WriteString("{}")
	}
	e.raw("data: " + strings.TrimSuffix(b.String(), "\n") + "\n\n")
}

func (e *sse) raw(s string) {
	_, _ = io.WriteString(e.w, s)
	e.flusher.Flush()
}

func (e *sse) chunk(delta map[string]any, finish any, usage any) {
	ev := map[string]any{
		"id": e.id, "object": "chat.completion.chunk", "created": e.created, "model": e.model,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
	}
	if usage != nil {
		ev["choices"] = []any{}
		ev["usage"] = usage
	}
	e.event(ev)
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, req Request, turn Turn, n int) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeError(w, http.StatusInternalServerError, "", "llmtest: response cannot stream")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	e := &sse{w: w, flusher: flusher, id: fmt.Sprintf("chatcmpl-llmtest-%d", n), model: req.Model, created: time.Now().Unix()}
	e.chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)

	for _, c := range chunks(turn.Reasoning, turn.ChunkSize) {
		if !s.pause(r, time.Duration(turn.Delay)) {
			return
		}
		e.chunk(map[string]any{"reasoning_content": c}, nil, nil)
	}

	f := turn.Fault
	midFault := f != nil && (f.Cut || f.Malformed || f.Hang || f.Stall > 0)
	before, after := turn.Text, ""
	if midFault {
		at := runeFloor(turn.Text, f.At)
		before, after = turn.Text[:at], turn.Text[at:]
	}
	if !s.sendText(e, r, before, turn) {
		return
	}
	if midFault {
		switch {
		case f.Cut:
			// Aborting the handler drops the connection without the chunked-encoding
			// terminator, so the client sees an unexpected EOF, as with a real network cut.
			panic(http.ErrAbortHandler)
		case f.Malformed:
			e.raw("data: {\"choices\": [{\"delta\": {\"content\": \"unterminated\n\n")
			return
		case f.Hang:
			s.sleep(r, -1)
			return
		case !s.pause(r, time.Duration(f.Stall)):
			return
		}
		if !s.sendText(e, r, after, turn) {
			return
		}
	}

	for i, call := range turn.ToolCalls {
		if !s.sendToolCall(e, r, i, call, turn, n) {
			return
		}
	}

	finish := turn.FinishReason
	switch {
	case finish != "":
	case len(turn.ToolCalls) > 0:
		finish = "tool_calls"
	default:
		finish = "stop"
	}
	e.chunk(map[string]any{}, finish, nil)
	if req.IncludeUsage {
		e.chunk(nil, nil, usageObject(turn, s.recorded(n)))
	}
	e.raw("data: [DONE]\n\n")
}

// pause is sleep for scripted delays: zero is no pause at all.
func (s *Server) pause(r *http.Request, d time.Duration) bool {
	return d <= 0 || s.sleep(r, d)
}

func (s *Server) sendText(e *sse, r *http.Request, text string, turn Turn) bool {
	for _, c := range chunks(text, turn.ChunkSize) {
		if !s.pause(r, time.Duration(turn.Delay)) {
			return false
		}
		e.chunk(map[string]any{"content": c}, nil, nil)
	}
	return true
}

// sendToolCall streams one tool call as OpenAI does: the first piece carries the index, id,
// type and name with empty arguments, the following ones the arguments in pieces.
func (s *Server) sendToolCall(e *sse, r *http.Request, index int, call ToolCall, turn Turn, n int) bool {
	id := call.ID
	if id == "" {
		id = fmt.Sprintf("call_%d_%d", n, index)
	}
	if !s.pause(r, time.Duration(turn.Delay)) {
		return false
	}
	e.chunk(map[string]any{"tool_calls": []any{map[string]any{"index": index, "id": id, "type": "function",
		"function": map[string]any{"name": call.Name, "arguments": ""}}}}, nil, nil)
	for _, c := range chunks(call.Arguments, turn.ChunkSize) {
		if !s.pause(r, time.Duration(turn.Delay)) {
			return false
		}
		e.chunk(map[string]any{"tool_calls": []any{map[string]any{"index": index,
			"function": map[string]any{"arguments": c}}}}, nil, nil)
	}
	return true
}

// estimatePrompt is the prompt tokens of req at four bytes a token.
func estimatePrompt(req Request) int64 {
	in := 0
	for _, m := range req.Messages {
		in += len(m.Text)
	}
	return int64(in+3) / 4
}

// usageObject is the wire usage for a turn: the scripted one, or about four bytes a token.
func usageObject(turn Turn, req Request) map[string]any {
	u := turn.Usage
	if u == nil {
		out := len(turn.Text) + len(turn.Reasoning)
		for _, c := range turn.ToolCalls {
			out += len(c.Name) + len(c.Arguments)
		}
		u = &Usage{PromptTokens: estimatePrompt(req), CompletionTokens: int64(out+3) / 4}
		if req.PromptTokens > 0 {
			u.PromptTokens, u.CachedTokens = req.PromptTokens, req.CachedTokens
		}
	}
	out := map[string]any{
		"prompt_tokens":         u.PromptTokens,
		"completion_tokens":     u.CompletionTokens,
		"total_tokens":          u.PromptTokens + u.CompletionTokens,
		"prompt_tokens_details": map[string]any{"cached_tokens": u.CachedTokens},
	}
	if u.Cost != nil {
		out["cost"] = *u.Cost
	}
	return out
}
