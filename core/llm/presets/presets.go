// Package presets knows the model providers Cairn has settings for: where each one's
// OpenAI-compatible endpoint is, how it authenticates, whether it takes Anthropic-style cache
// breakpoints, and how to list its models with what is known about them (context window,
// prices). Listing speaks each provider's own catalogue endpoint over plain HTTP; chat requests
// still go through core/llm/openai.
//
// It is a leaf over core/llm: it returns errors and never logs.
package presets

import (
	"slices"
)

// Auth is how a provider takes the API key.
type Auth string

// Auth styles.
const (
	// AuthBearer sends "Authorization: Bearer <key>" (the key may be optional).
	AuthBearer Auth = "bearer"
	// AuthAzure sends the key in an "api-key" header and routes by deployment.
	AuthAzure Auth = "azure"
	// AuthNone needs no key (local servers).
	AuthNone Auth = "none"
)

// Lister names how a provider's models are listed.
type Lister string

// Listers.
const (
	// ListOpenAI is GET {base}/models with ids only; facts come from the built-in table, and
	// vLLM's max_model_len when present.
	ListOpenAI Lister = "openai"
	// ListOpenRouter is OpenRouter's catalogue: prices and context windows, cached on disk.
	ListOpenRouter Lister = "openrouter"
	// ListOllama is Ollama's /api/tags, with each model's context length from /api/show.
	ListOllama Lister = "ollama"
	// ListLMStudio is LM Studio's /api/v0/models, which includes the context length.
	ListLMStudio Lister = "lmstudio"
	// ListNone: the provider has no model list for a key (Azure lists deployments only in
	// its management API); the configured model is the list.
	ListNone Lister = "none"
)

// Preset is one provider.
type Preset struct {
	ID   string
	Name string
	// BaseURL is the OpenAI-compatible endpoint, with its version path; "" means the user
	// must give one (Azure's resource endpoint, a custom server).
	BaseURL string
	Auth    Auth
	// CacheControl: the provider passes Anthropic-style cache_control breakpoints on to the
	// model. Providers without it cache a repeated prefix by themselves, or not at all.
	CacheControl bool
	List         Lister
	// Local providers run on the user's machine: their requests cost nothing.
	Local bool
	// KeyEnv is the environment variable the provider's key is usually kept in.
	KeyEnv string
}

// Custom is the preset of any other OpenAI-compatible endpoint, and of settings without one.
const Custom = "openai-compatible"

// VSCodeLM is the preset of the editor's own language models (core/llm/vscodelm): no endpoint
// and no key; requests go through the editor that started the task, which also lists the
// models, so the daemon never lists them itself.
const VSCodeLM = "vscode-lm"

var all = []Preset{
	{ID: "openai", Name: "OpenAI", BaseURL: "https://api.openai.com/v1", Auth: AuthBearer, List: ListOpenAI, KeyEnv: "OPENAI_API_KEY"},
	{ID: "openrouter", Name: "OpenRouter", BaseURL: "https://openrouter.ai/api/v1", Auth: AuthBearer, CacheControl: true, List: ListOpenRouter, KeyEnv: "OPENROUTER_API_KEY"},
	{ID: "anthropic", Name: "Anthropic (OpenAI-compatible)", BaseURL: "https://api.anthropic.com/v1", Auth: AuthBearer, CacheControl: true, List: ListOpenAI, KeyEnv: "ANTHROPIC_API_KEY"},
	{ID: "gemini", Name: "Google Gemini (OpenAI-compatible)", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", Auth: AuthBearer, List: ListOpenAI, KeyEnv: "GEMINI_API_KEY"},
	{ID: "deepseek", Name: "DeepSeek", BaseURL: "https://api.deepseek.com/v1", Auth: AuthBearer, List: ListOpenAI, KeyEnv: "DEEPSEEK_API_KEY"},
	{ID: "azure", Name: "Azure OpenAI", Auth: AuthAzure, List: ListNone, KeyEnv: "AZURE_OPENAI_API_KEY"},
	{ID: "ollama", Name: "Ollama", BaseURL: "http://localhost:11434/v1", Auth: AuthNone, List: ListOllama, Local: true},
	{ID: "lmstudio", Name: "LM Studio", BaseURL: "http://localhost:1234/v1", Auth: AuthNone, List: ListLMStudio, Local: true},
	{ID: "vllm", Name: "vLLM", BaseURL: "http://localhost:8000/v1", Auth: AuthBearer, List: ListOpenAI, Local: true},
	{ID: "litellm", Name: "LiteLLM proxy", BaseURL: "http://localhost:4000/v1", Auth: AuthBearer, CacheControl: true, List: ListOpenAI},
	{ID: VSCodeLM, Name: "VS Code language models (no key)", Auth: AuthNone, List: ListNone},
	{ID: Custom, Name: "OpenAI-compatible (other)", Auth: AuthBearer, List: ListOpenAI},
}

// All returns every preset, in the order the settings offer them.
func All() []Preset { return slices.Clone(all) }

// Lookup finds a preset by id; "" and unknown ids give the custom preset, so old settings keep
// working as they did.
func Lookup(id string) Preset {
	for _, p := range all {
		if p.ID == id {
			return p
		}
	}
	return all[len(all)-1]
}
