// Package config holds the user's settings: the model endpoint, the auto-approval policy and
// the task preferences, with their defaults (docs/settings.md) and a JSON file form.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// API is the model endpoint.
type API struct {
	BaseURL            string            `json:"baseUrl,omitempty"`
	APIKey             string            `json:"apiKey,omitempty"`
	Model              string            `json:"model,omitempty"`
	PlanModel          string            `json:"planModel,omitempty"`
	Headers            map[string]string `json:"headers,omitempty"`
	RequestIdleTimeout int               `json:"requestIdleTimeoutSeconds,omitempty"`
	ContextWindow      int64             `json:"contextWindow,omitempty"`
	MaxOutputTokens    int64             `json:"maxOutputTokens,omitempty"`
	InputPrice         float64           `json:"inputPrice,omitempty"`
	OutputPrice        float64           `json:"outputPrice,omitempty"`
	SupportsImages     bool              `json:"supportsImages,omitempty"`
	// ToolFormat overrides the model table's tool-calling format: "native" or "xml"; empty
	// keeps the table's (XML for models it does not know).
	ToolFormat string `json:"toolFormat,omitempty"`
	// ReasoningEffort is "low", "medium" or "high", sent to models that take it; empty sends
	// nothing.
	ReasoningEffort string `json:"reasoningEffort,omitempty"`
	// Preset names the provider (core/llm/presets): its auth, cache breakpoints and model
	// catalogue. "" is any OpenAI-compatible endpoint at BaseURL.
	Preset string `json:"preset,omitempty"`
	// AzureDeployment and AzureAPIVersion complete the Azure OpenAI preset, whose BaseURL is
	// the resource endpoint.
	AzureDeployment string `json:"azureDeployment,omitempty"`
	AzureAPIVersion string `json:"azureApiVersion,omitempty"`
}

// AutoApprove is the approval policy (docs/architecture.md, "Approvals").
type AutoApprove struct {
	Enabled          bool `json:"enabled"`
	ReadFiles        bool `json:"readFiles"`
	ReadFilesOutside bool `json:"readFilesOutside"`
	EditFiles        bool `json:"editFiles"`
	EditFilesOutside bool `json:"editFilesOutside"`
	SafeCommands     bool `json:"safeCommands"`
	AllCommands      bool `json:"allCommands"`
	Browser          bool `json:"browser"`
	// LocalNetwork lets web_fetch and browser_action reach loopback and private addresses
	// (tools.CategoryLocal) without asking. Off by default: a page there is not the public web.
	LocalNetwork bool `json:"localNetwork"`
	MCP          bool `json:"mcp"`
	// Protected lets the categories above also approve writes to protected files
	// (core/protect: .git/, .vscode/, rule and ignore files, …). Off by default.
	Protected   bool     `json:"protected"`
	MaxRequests int      `json:"maxRequests"`
	YOLO        bool     `json:"yolo"`
	DenyList    []string `json:"commandDenyList"`
	AllowList   []string `json:"commandAllowList,omitempty"`
}

// TaskLimits cap what one task may spend before it stops and asks (0: no limit). They count
// every model request of the task, subagents' included.
type TaskLimits struct {
	MaxRequests int `json:"maxRequests,omitempty"`
	// MaxCost is in USD, priced by the model table or api.inputPrice/api.outputPrice.
	MaxCost float64 `json:"maxCost,omitempty"`
}

// Settings are everything the user can set.
type Settings struct {
	API             API         `json:"api"`
	AutoApprove     AutoApprove `json:"autoApprove"`
	MistakeLimit    int         `json:"mistakeLimit"`
	TaskLimits      TaskLimits  `json:"taskLimits"`
	OutputLineLimit int         `json:"outputLineLimit"`
	OutputByteLimit int         `json:"outputByteLimit,omitempty"`
	// CommandWaitSeconds is how long a foreground command runs before it moves to the
	// background (README "Commands that keep running"); 0 or less: no limit.
	CommandWaitSeconds  int    `json:"commandWaitSeconds"`
	ReadFileLineLimit   int    `json:"readFileLineLimit"`
	FocusChainEnabled   bool   `json:"focusChainEnabled"`
	FocusChainInterval  int    `json:"focusChainInterval"`
	CheckpointsEnabled  bool   `json:"checkpointsEnabled"`
	PreferredLanguage   string `json:"preferredLanguage,omitempty"`
	CustomInstructions  string `json:"customInstructions,omitempty"`
	FullEditResults     bool   `json:"fullEditResults"`
	DedupFileContents   bool   `json:"dedupFileContents"`
	AutoCondense        bool   `json:"autoCondense"`
	AutoCondensePercent int    `json:"autoCondensePercent"`
	// BrowserEnabled offers browser_action and renders script-built pages for web_fetch;
	// true by default, used only when a browser is found (README "Browser and the web").
	BrowserEnabled bool `json:"browserEnabled"`
	// BrowserViewport is browser_action's viewport, one of BrowserViewports ("": the first).
	BrowserViewport string `json:"browserViewport,omitempty"`
	// BrowserRemoteURL, when set, drives a browser that already runs with remote debugging
	// (its DevTools address, e.g. http://localhost:9222) instead of starting one.
	BrowserRemoteURL string `json:"browserRemoteUrl,omitempty"`
	// BrowserPath is the Chromium, Chrome or Edge to run ("": looked for in the usual places).
	BrowserPath string          `json:"browserPath,omitempty"`
	RuleToggles map[string]bool `json:"ruleToggles,omitempty"`
	// SkillToggles switches skills on and off by ID (core/skills); a skill not listed is on.
	SkillToggles map[string]bool `json:"skillToggles,omitempty"`
	// SecretEnv names more environment variables to keep from commands, on top of
	// DefaultSecretEnv (company tokens and the like).
	SecretEnv []string `json:"secretEnv,omitempty"`
	// HookTimeoutSeconds bounds each hook's run (0: 30 seconds).
	HookTimeoutSeconds int `json:"hookTimeoutSeconds,omitempty"`
	// SandboxOff runs commands, hooks and MCP servers outside the command sandbox (README
	// "Security"): the user's choice, never the model's; off by default.
	SandboxOff bool `json:"sandboxDisabled,omitempty"`
	// SandboxNetwork lets commands that were auto-approved open network connections; a
	// command the user approved always may.
	SandboxNetwork bool `json:"sandboxNetwork,omitempty"`
	// SandboxMaskedPaths are more files and folders that read as absent in the sandbox, on
	// top of the credential stores (absolute, or ~/ for the home folder).
	SandboxMaskedPaths []string `json:"sandboxMaskedPaths,omitempty"`
	// LanguageServers names a language's server (docs/settings.md, "Language servers"): the
	// program and its arguments, by language ("go", "typescript", "python", "rust", "c"); an
	// empty list turns the language's server off. A language not named uses the first of its
	// known servers found on PATH.
	LanguageServers map[string][]string `json:"languageServers,omitempty"`
	// NoCommands leaves execute_command out of every task's tools and system prompt: the
	// protocol of `cairn eval` without --agentic (README "Benchmark").
	NoCommands bool `json:"noCommands,omitempty"`
	// WorktreeCarryChanges copies the working tree's uncommitted changes into a new worktree
	// task's worktree (README, "Tasks in worktrees"); off by default.
	WorktreeCarryChanges bool `json:"worktreeCarryChanges,omitempty"`
	// WorktreeMergeMode is how Merge lands a worktree task's changes: "uncommitted" ("" too)
	// or "commit" (a merge commit of the task's branch).
	WorktreeMergeMode string `json:"worktreeMergeMode,omitempty"`

	// otherSecrets are secret values these settings no longer use but a task's children must
	// not see: the shared key a task's Overrides replaced (never saved).
	otherSecrets []string
}

// BrowserViewports are the viewport sizes the browser setting offers, the default first.
var BrowserViewports = []string{"900x600", "1280x800", "768x1024", "375x667"}

// BrowserSize returns the browser viewport; an unknown setting gives the default.
func (s Settings) BrowserSize() (width, height int) {
	v := s.BrowserViewport
	if !slices.Contains(BrowserViewports, v) {
		v = BrowserViewports[0]
	}
	if _, err := fmt.Sscanf(v, "%dx%d", &width, &height); err != nil {
		return 900, 600
	}
	return width, height
}

// DefaultDenyList is the command deny list (README, "Security"): a command with a part that matches
// an entry is always asked, even under YOLO. core/shellcmd matches entries against the parsed
// command in any flag spelling; see shellcmd.Script.Denied for the entry forms.
var DefaultDenyList = []string{
	"rm -rf", "sudo", "doas", "git push --force", "git push -f", "git reset --hard", "git clean -f",
	"mkfs", "dd", "curl|sh", "curl|bash", "wget|sh", "wget|bash", "chmod -R", ":(){",
	"find -delete", "find -exec rm", "find -execdir rm", "shred", "truncate",
}

// DefaultSecretEnv names the environment variables that hold Cairn's and model providers'
// keys. Commands the agent runs never see them, nor the names in Settings.SecretEnv.
var DefaultSecretEnv = []string{
	"CAIRN_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN",
	"OPENROUTER_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "AZURE_OPENAI_API_KEY",
	"AZURE_API_KEY", "DEEPSEEK_API_KEY", "MISTRAL_API_KEY", "GROQ_API_KEY", "XAI_API_KEY",
	"TOGETHER_API_KEY", "FIREWORKS_API_KEY", "COHERE_API_KEY", "PERPLEXITY_API_KEY",
	"CEREBRAS_API_KEY", "HF_TOKEN", "HUGGINGFACE_API_KEY", "OLLAMA_API_KEY",
}

// SecretEnvNames returns the names to remove from the environment of commands: the defaults
// and the user's own, without duplicates.
func (s Settings) SecretEnvNames() []string {
	out := slices.Clone(DefaultSecretEnv)
	for _, n := range s.SecretEnv {
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// Default returns the settings a new user starts with.
func Default() Settings {
	return Settings{
		API: API{RequestIdleTimeout: 120},
		AutoApprove: AutoApprove{
			Enabled: true, ReadFiles: true, SafeCommands: true, MaxRequests: 20,
			DenyList: append([]string(nil), DefaultDenyList...),
		},
		MistakeLimit:        3,
		OutputLineLimit:     500,
		CommandWaitSeconds:  60,
		ReadFileLineLimit:   2000,
		FocusChainEnabled:   true,
		FocusChainInterval:  6,
		CheckpointsEnabled:  true,
		DedupFileContents:   true,
		AutoCondensePercent: 75,
		// On by default; it takes effect only when a Chromium or Chrome is found or a remote
		// browser is set (README "Browser and the web").
		BrowserEnabled: true,
	}
}

// Load reads settings from path over the defaults; a missing file gives the defaults.
func Load(path string) (Settings, error) {
	s := Default()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return s, fmt.Errorf("config: %w", err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return Default(), fmt.Errorf("config: %s: %w", path, err)
	}
	return s, nil
}

// Save writes settings to path (0600: it may hold an API key), atomically.
func Save(path string, s Settings) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

// Holder is the daemon's current settings, shared by every task and RPC. The API key given
// at run time is kept in memory only; the file never receives it unless it was there before.
type Holder struct {
	path string

	// mu guards s and keyOnDisk.
	mu        sync.Mutex
	s         Settings
	keyOnDisk bool
}

// NewHolder loads path (empty: memory only).
func NewHolder(path string) (*Holder, error) {
	h := &Holder{path: path, s: Default()}
	if path == "" {
		return h, nil
	}
	s, err := Load(path)
	if err != nil {
		return h, err
	}
	h.s = s
	h.keyOnDisk = s.API.APIKey != ""
	return h, nil
}

// Get returns a copy of the settings.
func (h *Holder) Get() Settings {
	h.mu.Lock()
	defer h.mu.Unlock()
	return clone(h.s)
}

// Set replaces the settings and writes them (without a run-time API key) to the file.
func (h *Holder) Set(s Settings) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.s = clone(s)
	if h.path == "" {
		return nil
	}
	onDisk := clone(s)
	if !h.keyOnDisk {
		onDisk.API.APIKey = ""
	}
	return Save(h.path, onDisk)
}

func clone(s Settings) Settings {
	out := s
	out.API.Headers = maps.Clone(s.API.Headers)
	out.AutoApprove.DenyList = slices.Clone(s.AutoApprove.DenyList)
	out.AutoApprove.AllowList = slices.Clone(s.AutoApprove.AllowList)
	out.RuleToggles = maps.Clone(s.RuleToggles)
	out.SkillToggles = maps.Clone(s.SkillToggles)
	out.SecretEnv = slices.Clone(s.SecretEnv)
	return out
}
