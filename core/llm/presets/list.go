package presets

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/llm"
)

// Model is one model a provider offers, with what is known about it. Prices are USD per
// million tokens and mean something only when PricesKnown: an unknown price is not a free one.
type Model struct {
	ID              string
	ContextWindow   int // 0: unknown
	MaxOutput       int // 0: unknown
	InputPrice      float64
	OutputPrice     float64
	CacheReadPrice  float64
	CacheWritePrice float64
	PricesKnown     bool
}

// Info is the model's facts in the form the loop uses, unknown values left to the table's
// defaults.
func (m Model) Info() llm.ModelInfo {
	info, _ := llm.LookupModel(m.ID)
	if m.ContextWindow > 0 {
		info.ContextWindow = m.ContextWindow
	}
	if m.MaxOutput > 0 {
		info.MaxOutput = m.MaxOutput
	}
	if m.PricesKnown {
		info.InputPrice, info.OutputPrice = m.InputPrice, m.OutputPrice
		info.CacheReadPrice, info.CacheWritePrice = m.CacheReadPrice, m.CacheWritePrice
	}
	return info
}

// Endpoint is where and how to list.
type Endpoint struct {
	// BaseURL overrides the preset's (required for presets without one).
	BaseURL string
	APIKey  string
	Headers map[string]string
	// Client is the HTTP client; nil means http.DefaultClient.
	Client *http.Client
	// CacheDir keeps OpenRouter's catalogue between runs ("": no disk cache).
	CacheDir string
	// Now is the clock for the cache's expiry; nil means time.Now.
	Now func() time.Time
}

// List returns the models of the provider, sorted by id.
func List(ctx context.Context, p Preset, ep Endpoint) ([]Model, error) {
	base := strings.TrimRight(ep.BaseURL, "/")
	if base == "" {
		base = p.BaseURL
	}
	if base == "" && p.List != ListNone {
		return nil, fmt.Errorf("%w: %s", ErrNoBaseURL, p.Name)
	}
	c := client{ep: ep, auth: p.Auth}
	var out []Model
	var err error
	switch p.List {
	case ListOpenRouter:
		out, err = listOpenRouter(ctx, c, base)
	case ListOllama:
		out, err = listOllama(ctx, c, base)
	case ListLMStudio:
		out, err = listLMStudio(ctx, c, base)
	case ListNone:
		return nil, nil
	default:
		out, err = listOpenAI(ctx, c, base)
	}
	if err != nil {
		return nil, err
	}
	if p.Local {
		for i := range out {
			out[i].InputPrice, out[i].OutputPrice, out[i].CacheReadPrice, out[i].CacheWritePrice = 0, 0, 0, 0
			out[i].PricesKnown = true
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// fromTable fills a model's facts from the built-in table.
func fromTable(id string) Model {
	m := Model{ID: id}
	if info, ok := llm.LookupModel(id); ok {
		m.ContextWindow, m.MaxOutput = info.ContextWindow, info.MaxOutput
		m.InputPrice, m.OutputPrice = info.InputPrice, info.OutputPrice
		m.CacheReadPrice, m.CacheWritePrice = info.CacheReadPrice, info.CacheWritePrice
		m.PricesKnown = info.InputPrice > 0 || info.OutputPrice > 0
	}
	return m
}

// listOpenAI reads GET /models. vLLM adds each model's max_model_len; Gemini prefixes ids
// with "models/", which its chat endpoint does not want.
func listOpenAI(ctx context.Context, c client, base string) ([]Model, error) {
	var resp struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
		} `json:"data"`
	}
	if err := c.getJSON(ctx, base+"/models", &resp); err != nil {
		return nil, err
	}
	out := make([]Model, 0, len(resp.Data))
	for _, d := range resp.Data {
		m := fromTable(strings.TrimPrefix(d.ID, "models/"))
		if d.MaxModelLen > 0 {
			m.ContextWindow = d.MaxModelLen
		}
		out = append(out, m)
	}
	return out, nil
}

// client makes the catalogue requests with the provider's auth.
type client struct {
	ep   Endpoint
	auth Auth
}

func (c client) do(ctx context.Context, method, url string, body any, v any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("presets: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return fmt.Errorf("presets: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.ep.APIKey != "" {
		switch c.auth {
		case AuthAzure:
			req.Header.Set("api-key", c.ep.APIKey)
		case AuthBearer:
			req.Header.Set("Authorization", "Bearer "+c.ep.APIKey)
		}
	}
	for k, val := range c.ep.Headers {
		req.Header.Set(k, val)
	}
	hc := c.ep.Client
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("presets: %w", err)
	}
	defer func() { _ = resp.Body.Close() }() // a response body: a failed close loses nothing
	if resp.StatusCode >= 300 {
		// The path only: a URL may carry a key in its query.
		return fmt.Errorf("%w: %s %s: HTTP %d", ErrStatus, method, req.URL.Path, resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		return fmt.Errorf("presets: decoding %s: %w", req.URL.Path, err)
	}
	return nil
}

func (c client) getJSON(ctx context.Context, url string, v any) error {
	return c.do(ctx, http.MethodGet, url, nil, v)
}

// root strips the OpenAI-compatible version path from a local server's URL: Ollama's and
// LM Studio's own APIs live beside it.
func root(base string) string {
	return strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1")
}
