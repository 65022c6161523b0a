package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm"
)

func TestProviderConfigFollowsPreset(t *testing.T) {
	for _, tc := range []struct {
		name, preset, baseURL string
		wantBase              string
		wantCache, wantAzure  bool
	}{
		{"no preset: the endpoint as given", "", "http://localhost:9/v1", "http://localhost:9/v1", false, false},
		{"OpenRouter fills its URL and caches", "openrouter", "", "https://openrouter.ai/api/v1", true, false},
		{"a given URL wins over the preset's", "ollama", "http://gpu-box:11434/v1", "http://gpu-box:11434/v1", false, false},
		{"Anthropic caches", "anthropic", "", "https://api.anthropic.com/v1", true, false},
		{"Azure routes by deployment", "azure", "https://r.openai.azure.com", "https://r.openai.azure.com", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := config.Default()
			s.API.Preset, s.API.BaseURL, s.API.AzureDeployment = tc.preset, tc.baseURL, "dep"
			cfg := providerConfig(s)
			if cfg.BaseURL != tc.wantBase || cfg.CacheControl != tc.wantCache || (cfg.Azure != nil) != tc.wantAzure {
				t.Fatalf("base %q cache %v azure %+v", cfg.BaseURL, cfg.CacheControl, cfg.Azure)
			}
			if tc.wantAzure && (cfg.Azure.Deployment != "dep" || cfg.Azure.Endpoint != tc.baseURL) {
				t.Fatalf("azure %+v", cfg.Azure)
			}
		})
	}
}

// TestCatalogueInfoPricesOpenRouterModels: a model the table does not know is priced from the
// stored OpenRouter catalogue; other presets and known models keep the table's facts.
func TestCatalogueInfoPricesOpenRouterModels(t *testing.T) {
	dir := t.TempDir()
	cat := map[string]any{"fetched": time.Now(), "models": []map[string]any{
		{"ID": "acme/coder-9", "ContextWindow": 262144, "InputPrice": 0.5, "OutputPrice": 2, "CacheReadPrice": 0.05, "PricesKnown": true},
	}}
	b, err := json.Marshal(cat)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "openrouter-models.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, preset, model string
		wantInput           float64
		wantWindow          int
	}{
		{"unknown model from the catalogue", "openrouter", "acme/coder-9", 0.5, 262144},
		{"other presets ignore it", "", "acme/coder-9", 0, llm.DefaultContextWindow},
		{"the table still wins for known models", "openrouter", "gpt-4o", 2.5, 128000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := config.Default()
			s.API.Preset, s.API.Model = tc.preset, tc.model
			info := catalogueInfo(s, dir, ModelInfo(s))
			if info.InputPrice != tc.wantInput || info.ContextWindow != tc.wantWindow {
				t.Fatalf("info %+v", info)
			}
		})
	}
}
