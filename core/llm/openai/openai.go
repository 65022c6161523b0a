// Package openai adapts any OpenAI-compatible chat-completions endpoint (OpenAI, OpenRouter,
// DeepSeek, Groq, xAI, Together, Ollama, LM Studio, vLLM, …) to llm.Provider, on go-openai.
//
// go-openai does the request encoding and the SSE framing; the stream's events are decoded
// here from the raw JSON because providers put fields go-openai does not model in them
// (DeepSeek's cache hit counts, OpenRouter's cost and "reasoning" delta).
package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/cairnhq/cairn/core/llm"
)

// Config says where the endpoint is and how to authenticate.
type Config struct {
	// BaseURL includes the version path, e.g. "https://api.openai.com/v1".
	BaseURL string
	APIKey  string
	// Headers are added to every request (OpenRouter's HTTP-Referer/X-Title, proxies' keys).
	Headers map[string]string
	// HTTPClient is the transport to use; nil means a plain http.Client. Its timeout, if any,
	// would cut long streams: leave it zero and rely on llm.WithIdleTimeout.
	HTTPClient *http.Client
	// CacheControl marks the system prompt and the last user turns with Anthropic-style cache
	// breakpoints (cache.go), for endpoints that pass them on: OpenRouter, LiteLLM, Anthropic.
	CacheControl bool
	// Azure, when set, talks to an Azure OpenAI resource instead of BaseURL (azure.go).
	Azure *Azure
}

// Provider talks to one endpoint. It is safe for concurrent use.
type Provider struct {
	client *goopenai.Client
}

var _ llm.Provider = (*Provider)(nil)

// New builds a Provider.
func New(cfg Config) *Provider {
	oc := goopenai.DefaultConfig(cfg.APIKey)
	if cfg.BaseURL != "" {
		oc.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	}
	if cfg.Azure != nil {
		oc = cfg.Azure.config(cfg.APIKey)
	}
	base := cfg.HTTPClient
	if base == nil {
		base = &http.Client{}
	}
	oc.HTTPClient = &doer{client: base, headers: cfg.Headers, cacheControl: cfg.CacheControl}
	// Providers send keep-alive comments; go-openai counts non-data lines against this limit.
	oc.EmptyMessagesLimit = 10_000
	return &Provider{client: goopenai.NewClientWithConfig(oc)}
}

// doer adds the extra headers and remembers the failing response's rate-limit headers, which
// go-openai drops when it turns the response into an error.
type doer struct {
	client       *http.Client
	headers      map[string]string
	cacheControl bool
}

type headerSlot struct{ h http.Header }

type headerSlotKey struct{}

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	for k, v := range d.headers {
		req.Header.Set(k, v)
	}
	if d.cacheControl {
		if err := addCacheControl(req); err != nil {
			return nil, err
		}
	}
	resp, err := d.client.Do(req)
	if err == nil && resp.StatusCode >= 400 {
		if slot, ok := req.Context().Value(headerSlotKey{}).(*headerSlot); ok {
			slot.h = resp.Header.Clone()
		}
	}
	return resp, err
}

// Stream implements llm.Provider.
func (p *Provider) Stream(ctx context.Context, req llm.Request) (llm.Stream, error) {
	creq, err := buildRequest(req)
	if err != nil {
		return nil, err
	}
	slot := &headerSlot{}
	s, err := p.client.CreateChatCompletionStream(context.WithValue(ctx, headerSlotKey{}, slot), creq)
	if err != nil {
		return nil, mapError(err, slot.h)
	}
	return &stream{s: s}, nil
}

// Models implements llm.Provider via GET /models.
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	slot := &headerSlot{}
	list, err := p.client.ListModels(context.WithValue(ctx, headerSlotKey{}, slot))
	if err != nil {
		return nil, mapError(err, slot.h)
	}
	ids := make([]string, 0, len(list.Models))
	for _, m := range list.Models {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

func buildRequest(req llm.Request) (goopenai.ChatCompletionRequest, error) {
	msgs := make([]goopenai.ChatCompletionMessage, 0, len(req.Messages)+1)
	if req.System != "" {
		msgs = append(msgs, goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleSystem, Content: req.System})
	}
	for i, m := range req.Messages {
		results, m := splitToolResults(m)
		msgs = append(msgs, results...)
		if results != nil && len(m.Content) == 0 {
			continue
		}
		cm, err := convertMessage(m)
		if err != nil {
			return goopenai.ChatCompletionRequest{}, fmt.Errorf("message %d: %w", i, err)
		}
		if m.Role == llm.RoleAssistant && len(m.ToolCalls) > 0 {
			cm.ToolCalls = wireToolCalls(m.ToolCalls)
		}
		msgs = append(msgs, cm)
	}
	creq := goopenai.ChatCompletionRequest{
		Model:         req.Model,
		Messages:      msgs,
		Stream:        true,
		StreamOptions: &goopenai.StreamOptions{IncludeUsage: true},
		MaxTokens:     req.MaxTokens,
	}
	if req.Temperature != nil {
		// go-openai omits a zero temperature; the smallest float32 is zero to every server.
		creq.Temperature = max(float32(*req.Temperature), math.SmallestNonzeroFloat32)
	}
	applyOptions(&creq, req)
	// Reasoning models (o-series, gpt-5) reject max_tokens and sampling settings; ask
	// go-openai's own validator rather than keep a second list of model names.
	if goopenai.NewReasoningValidator().Validate(creq) != nil {
		creq.MaxCompletionTokens, creq.MaxTokens = creq.MaxTokens, 0
		creq.Temperature = 0
	}
	return creq, nil
}

func convertMessage(m llm.Message) (goopenai.ChatCompletionMessage, error) {
	cm := goopenai.ChatCompletionMessage{Role: string(m.Role)}
	if m.Role != llm.RoleUser && m.Role != llm.RoleAssistant {
		return cm, fmt.Errorf("%w: role %q", ErrBadRequest, m.Role)
	}
	hasImage := false
	for _, c := range m.Content {
		hasImage = hasImage || c.Type == llm.ContentImage
	}
	if !hasImage {
		// Plain string content is what every compatible server accepts; the parts form is
		// not understood by some local servers.
		var b strings.Builder
		for i, c := range m.Content {
			if i > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(c.Text)
		}
		cm.Content = b.String()
		return cm, nil
	}
	if m.Role != llm.RoleUser {
		return cm, fmt.Errorf("%w: images are only allowed in user messages", ErrBadRequest)
	}
	for _, c := range m.Content {
		switch c.Type {
		case llm.ContentImage:
			if c.ImageMediaType == "" || c.ImageData == "" {
				return cm, fmt.Errorf("%w: image block without media type or data", ErrBadRequest)
			}
			cm.MultiContent = append(cm.MultiContent, goopenai.ChatMessagePart{
				Type:     goopenai.ChatMessagePartTypeImageURL,
				ImageURL: &goopenai.ChatMessageImageURL{URL: "data:" + c.ImageMediaType + ";base64," + c.ImageData},
			})
		default:
			cm.MultiContent = append(cm.MultiContent, goopenai.ChatMessagePart{Type: goopenai.ChatMessagePartTypeText, Text: c.Text})
		}
	}
	return cm, nil
}

// stream decodes the events of one response.
type stream struct {
	s *goopenai.ChatCompletionStream
	// finished records a finish_reason: go-openai reports a body that simply ends like one
	// that ended with [DONE], and only the finish reason tells a truncated answer apart.
	finished bool
	calls    callIndexes
}

// event is one streamed chat-completion chunk, with the provider extensions we read.
type event struct {
	Choices []struct {
		Delta struct {
			Content          string          `json:"content"`
			ReasoningContent string          `json:"reasoning_content"` // DeepSeek, vLLM, LM Studio
			Reasoning        string          `json:"reasoning"`         // OpenRouter, Ollama
			ToolCalls        []wireCallDelta `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usage `json:"usage"`
}

type usage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens     int64 `json:"cached_tokens"`
		CacheWriteTokens int64 `json:"cache_write_tokens"` // OpenRouter for Anthropic models
	} `json:"prompt_tokens_details"`
	PromptCacheHitTokens *int64   `json:"prompt_cache_hit_tokens"` // DeepSeek
	Cost                 *float64 `json:"cost"`                    // OpenRouter
	// Anthropic's OpenAI-compatible endpoint and LiteLLM report cache writes at the top level.
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

// toLLM converts to llm.Usage, whose counts are disjoint: OpenAI's prompt_tokens includes the
// cached tokens, so they are subtracted from the input count.
func (u *usage) toLLM() *llm.Usage {
	out := &llm.Usage{OutputTokens: u.CompletionTokens, TotalCost: u.Cost}
	switch {
	case u.PromptCacheHitTokens != nil:
		out.CacheReadTokens = *u.PromptCacheHitTokens
	case u.PromptTokensDetails != nil:
		out.CacheReadTokens = u.PromptTokensDetails.CachedTokens
		out.CacheWriteTokens = u.PromptTokensDetails.CacheWriteTokens
	}
	if out.CacheWriteTokens == 0 {
		out.CacheWriteTokens = u.CacheCreationInputTokens
	}
	out.InputTokens = max(u.PromptTokens-out.CacheReadTokens-out.CacheWriteTokens, 0)
	return out
}

func (s *stream) Recv() (llm.Chunk, error) {
	for {
		raw, err := s.s.RecvRaw()
		if err != nil {
			if errors.Is(err, io.EOF) {
				if !s.finished {
					return llm.Chunk{}, fmt.Errorf("openai: %w", ErrTruncated)
				}
				return llm.Chunk{}, io.EOF
			}
			return llm.Chunk{}, mapError(err, nil)
		}
		var ev event
		if err := json.Unmarshal(raw, &ev); err != nil {
			return llm.Chunk{}, fmt.Errorf("%w: %w", ErrMalformedEvent, err)
		}
		var c llm.Chunk
		for _, ch := range ev.Choices {
			c.Text += ch.Delta.Content
			c.Reasoning += ch.Delta.ReasoningContent + ch.Delta.Reasoning
			c.ToolCalls = append(c.ToolCalls, s.calls.deltas(ch.Delta.ToolCalls)...)
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				s.finished = true
				c.FinishReason = *ch.FinishReason
			}
		}
		if ev.Usage != nil {
			c.Usage = ev.Usage.toLLM()
		}
		// Role-only events carry nothing for the caller.
		if c.Text != "" || c.Reasoning != "" || len(c.ToolCalls) > 0 || c.Usage != nil || c.FinishReason != "" {
			return c, nil
		}
	}
}

func (s *stream) Close() error { return s.s.Close() }
