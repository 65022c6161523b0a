package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Anthropic models, whether reached directly through Anthropic's OpenAI-compatible endpoint or
// through a gateway (OpenRouter, LiteLLM), cache a prompt prefix only up to a message part that
// carries `cache_control: {"type": "ephemeral"}`. go-openai's message types have no such
// field, so the breakpoints are added to the encoded request body on its way out (the doer
// sees every request): the adapter keeps building requests with go-openai's types, and the
// breakpoints live in one function with a golden test of the exact JSON.

// cacheBreakpoints is how many of the last user messages get a breakpoint, beside the system
// prompt: the newest one writes the cache for the next request, the one before it reads what
// the previous request wrote. Anthropic allows four breakpoints a request.
const cacheBreakpoints = 2

var ephemeral = json.RawMessage(`{"type":"ephemeral"}`)

// withCacheControl rewrites a chat-completions request body so the system message and the last
// cacheBreakpoints user messages end with a part marked for caching. Plain string content
// becomes a single text part; in parts content the last text part is marked. Other fields pass
// through unchanged (the top-level keys come out sorted, which is as stable from one request to
// the next as go-openai's order).
func withCacheControl(body []byte) ([]byte, error) {
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("openai: cache breakpoints: %w", err)
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(req["messages"], &msgs); err != nil {
		return nil, fmt.Errorf("openai: cache breakpoints: messages: %w", err)
	}
	var targets []int
	users := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		switch role(msgs[i]) {
		case "system":
			targets = append(targets, i)
		case "user":
			if users < cacheBreakpoints {
				targets = append(targets, i)
				users++
			}
		}
	}
	for _, i := range targets {
		content, err := markLastText(msgs[i]["content"])
		if err != nil {
			return nil, fmt.Errorf("openai: cache breakpoints: message %d: %w", i, err)
		}
		if content != nil {
			msgs[i]["content"] = content
		}
	}
	encoded, err := marshal(msgs)
	if err != nil {
		return nil, err
	}
	req["messages"] = encoded
	return marshal(req)
}

func role(m map[string]json.RawMessage) string {
	var r string
	if err := json.Unmarshal(m["role"], &r); err != nil {
		return ""
	}
	return r
}

// markLastText returns the content with its last text part marked, or nil when there is no
// text to mark (empty content: Anthropic rejects a breakpoint on an empty block).
func markLastText(content json.RawMessage) (json.RawMessage, error) {
	var text string
	if err := json.Unmarshal(content, &text); err == nil {
		if text == "" {
			return nil, nil
		}
		part := map[string]any{"type": "text", "text": text, "cache_control": ephemeral}
		return marshal([]any{part})
	}
	var parts []map[string]json.RawMessage
	if err := json.Unmarshal(content, &parts); err != nil {
		return nil, fmt.Errorf("content is neither a string nor parts: %w", err)
	}
	for i := len(parts) - 1; i >= 0; i-- {
		if string(parts[i]["type"]) == `"text"` {
			parts[i]["cache_control"] = ephemeral
			return marshal(parts)
		}
	}
	return nil, nil
}

// marshal encodes without HTML escaping, as providers expect prompts verbatim.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("openai: cache breakpoints: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// addCacheControl replaces a chat-completions request's body by one with cache breakpoints.
func addCacheControl(req *http.Request) error {
	if req.Method != http.MethodPost || !strings.HasSuffix(req.URL.Path, "/chat/completions") || req.Body == nil {
		return nil
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return fmt.Errorf("openai: cache breakpoints: reading body: %w", err)
	}
	if err := req.Body.Close(); err != nil {
		return fmt.Errorf("openai: cache breakpoints: %w", err)
	}
	out, err := withCacheControl(body)
	if err != nil {
		return err
	}
	req.Body = io.NopCloser(bytes.NewReader(out))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(out)), nil }
	req.ContentLength = int64(len(out))
	return nil
}
