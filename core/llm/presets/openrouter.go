package presets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// OpenRouterTTL is how long a fetched OpenRouter catalogue is used before it is fetched again.
const OpenRouterTTL = 6 * time.Hour

const openRouterCacheFile = "openrouter-models.json"

// openRouterCache is the catalogue as kept in the data dir.
type openRouterCache struct {
	Fetched time.Time `json:"fetched"`
	Models  []Model   `json:"models"`
}

// listOpenRouter returns OpenRouter's catalogue: from the data dir while it is fresh, else
// fetched and stored. A failed fetch falls back to a stale copy when there is one.
func listOpenRouter(ctx context.Context, c client, base string) ([]Model, error) {
	now := time.Now
	if c.ep.Now != nil {
		now = c.ep.Now
	}
	cached, cacheErr := readOpenRouterCache(c.ep.CacheDir)
	if cacheErr == nil && now().Sub(cached.Fetched) < OpenRouterTTL {
		return cached.Models, nil
	}
	models, err := fetchOpenRouter(ctx, c, base)
	if err != nil {
		if cacheErr == nil && ctx.Err() == nil {
			return cached.Models, nil
		}
		return nil, err
	}
	if err := writeOpenRouterCache(c.ep.CacheDir, openRouterCache{Fetched: now(), Models: models}); err != nil {
		return models, err
	}
	return models, nil
}

// CachedOpenRouterModel finds a model in the stored catalogue, fresh or not: what a task
// prices its requests with when the settings name an OpenRouter model.
func CachedOpenRouterModel(cacheDir, id string) (Model, bool) {
	c, err := readOpenRouterCache(cacheDir)
	if err != nil {
		return Model{}, false
	}
	for _, m := range c.Models {
		if m.ID == id {
			return m, true
		}
	}
	return Model{}, false
}

func fetchOpenRouter(ctx context.Context, c client, base string) ([]Model, error) {
	// Prices are USD per token, as decimal strings; "-1" marks a router whose price depends
	// on the model it picks.
	var resp struct {
		Data []struct {
			ID            string `json:"id"`
			ContextLength int    `json:"context_length"`
			Pricing       struct {
				Prompt     string `json:"prompt"`
				Completion string `json:"completion"`
				CacheRead  string `json:"input_cache_read"`
				CacheWrite string `json:"input_cache_write"`
			} `json:"pricing"`
			TopProvider struct {
				MaxCompletionTokens int `json:"max_completion_tokens"`
			} `json:"top_provider"`
		} `json:"data"`
	}
	if err := c.getJSON(ctx, base+"/models", &resp); err != nil {
		return nil, err
	}
	out := make([]Model, 0, len(resp.Data))
	for _, d := range resp.Data {
		m := Model{ID: d.ID, ContextWindow: d.ContextLength, MaxOutput: d.TopProvider.MaxCompletionTokens}
		in, okIn := perMillion(d.Pricing.Prompt)
		outP, okOut := perMillion(d.Pricing.Completion)
		if okIn && okOut {
			m.InputPrice, m.OutputPrice, m.PricesKnown = in, outP, true
			m.CacheReadPrice, _ = perMillion(d.Pricing.CacheRead)
			m.CacheWritePrice, _ = perMillion(d.Pricing.CacheWrite)
		}
		out = append(out, m)
	}
	return out, nil
}

// perMillion converts a per-token price string; false for a missing or negative price.
func perMillion(s string) (float64, bool) {
	if s == "" {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return 0, false
	}
	return f * 1e6, true
}

func readOpenRouterCache(dir string) (openRouterCache, error) {
	var c openRouterCache
	if dir == "" {
		return c, fs.ErrNotExist
	}
	b, err := os.ReadFile(filepath.Join(dir, openRouterCacheFile))
	if err != nil {
		return c, fmt.Errorf("presets: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("presets: %s: %w", openRouterCacheFile, err)
	}
	return c, nil
}

func writeOpenRouterCache(dir string, c openRouterCache) error {
	if dir == "" {
		return nil
	}
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("presets: %w", err)
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("presets: %w", err)
	}
	tmp := filepath.Join(dir, openRouterCacheFile+".tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("presets: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, openRouterCacheFile)); err != nil {
		return errors.Join(fmt.Errorf("presets: %w", err), os.Remove(tmp))
	}
	return nil
}
