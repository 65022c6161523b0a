package llm

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairnhq/cairn/core/lazy"
)

// ModelInfo is what the loop needs to know about a model: how much fits, what it costs.
type ModelInfo struct {
	ContextWindow int `json:"context_window"`
	// MaxOutput is the largest completion the model produces; 0 means unknown.
	MaxOutput int `json:"max_output"`
	// Prices are USD per million tokens.
	InputPrice      float64 `json:"input"`
	OutputPrice     float64 `json:"output"`
	CacheReadPrice  float64 `json:"cache_read"`
	CacheWritePrice float64 `json:"cache_write"`
	SupportsImages  bool    `json:"images"`
	// ToolFormat is ToolFormatNative for models that should call tools natively; "" or
	// ToolFormatXML keeps the XML protocol.
	ToolFormat string `json:"tool_format,omitempty"`
	// ReasoningEffort is set for models that take a reasoning_effort setting.
	ReasoningEffort bool `json:"reasoning_effort,omitempty"`
	// Included marks the editor's own models (core/llm/vscodelm): their requests have no
	// price, and the task header says they are included with the editor's models.
	Included bool `json:"-"`
	// Label names the model for people when its id does not ("copilot · gpt-4o"); "": the id.
	Label string `json:"-"`
}

// NativeTools reports whether the model calls tools natively.
func (m ModelInfo) NativeTools() bool { return m.ToolFormat == ToolFormatNative }

// DefaultContextWindow is assumed for models the table does not know (docs/prompt.md, "The context
// window").
const DefaultContextWindow = 128_000

// UnknownModel is the info of a model missing from the table. Images are assumed supported,
// as Cline does for OpenAI-compatible endpoints; a text-only local model needs an override.
var UnknownModel = ModelInfo{ContextWindow: DefaultContextWindow, SupportsImages: true}

// ModelInfoOverride is the user's correction of the table (settings); nil fields keep the
// table's value.
type ModelInfoOverride struct {
	ContextWindow   *int     `json:"context_window,omitempty"`
	MaxOutput       *int     `json:"max_output,omitempty"`
	InputPrice      *float64 `json:"input,omitempty"`
	OutputPrice     *float64 `json:"output,omitempty"`
	CacheReadPrice  *float64 `json:"cache_read,omitempty"`
	CacheWritePrice *float64 `json:"cache_write,omitempty"`
	SupportsImages  *bool    `json:"images,omitempty"`
	// ToolFormat is ToolFormatNative or ToolFormatXML; "" keeps the table's.
	ToolFormat string `json:"tool_format,omitempty"`
}

// Apply returns info with the override's set fields replaced.
func (o ModelInfoOverride) Apply(info ModelInfo) ModelInfo {
	set := func(dst *int, src *int) {
		if src != nil {
			*dst = *src
		}
	}
	setF := func(dst *float64, src *float64) {
		if src != nil {
			*dst = *src
		}
	}
	set(&info.ContextWindow, o.ContextWindow)
	set(&info.MaxOutput, o.MaxOutput)
	setF(&info.InputPrice, o.InputPrice)
	setF(&info.OutputPrice, o.OutputPrice)
	setF(&info.CacheReadPrice, o.CacheReadPrice)
	setF(&info.CacheWritePrice, o.CacheWritePrice)
	if o.SupportsImages != nil {
		info.SupportsImages = *o.SupportsImages
	}
	if o.ToolFormat != "" {
		info.ToolFormat = o.ToolFormat
	}
	if info.ContextWindow <= 0 {
		info.ContextWindow = DefaultContextWindow
	}
	return info
}

//go:embed models.json
var modelsJSON []byte

// modelTable is models.json read on first use, with the bare ids of vendor-prefixed entries.
var modelTable = lazy.Value[modelsRead]{New: func() modelsRead {
	var f struct {
		Models map[string]ModelInfo `json:"models"`
	}
	if err := json.Unmarshal(modelsJSON, &f); err != nil {
		return modelsRead{err: fmt.Errorf("llm: embedded models.json: %w", err)}
	}
	table := make(map[string]ModelInfo, 2*len(f.Models))
	for id, info := range f.Models {
		table[id] = info
	}
	// Vendor-prefixed entries also answer to the bare id ("claude-sonnet-4.5" direct or
	// through another gateway), unless a bare entry exists already.
	for id, info := range f.Models {
		if _, bare, ok := strings.Cut(id, "/"); ok {
			if _, exists := table[bare]; !exists {
				table[bare] = info
			}
		}
	}
	return modelsRead{table: table}
}}

// modelsRead is models.json's table, or why it could not be read.
type modelsRead struct {
	table map[string]ModelInfo
	err   error
}

// LookupModel finds id in the built-in table: exactly, then without an "org/" prefix, then by
// the longest entry that prefixes the id at a separator (dated snapshots such as
// "gpt-4o-2024-08-06", tags such as "deepseek-chat:free"). Native Anthropic ids spell versions
// with dashes ("claude-sonnet-4-5"); they are normalised to the dotted form first.
func LookupModel(id string) (ModelInfo, bool) {
	read := modelTable.Get()
	table, err := read.table, read.err
	if err != nil { // the embedded file is tested; survive rather than panic
		return UnknownModel, false
	}
	id = strings.ToLower(strings.TrimSpace(id))
	candidates := []string{id}
	if _, bare, ok := strings.Cut(id, "/"); ok {
		candidates = append(candidates, bare)
	}
	for _, c := range candidates {
		if info, ok := table[c]; ok {
			return info, true
		}
		if info, ok := table[dotVersions(c)]; ok {
			return info, true
		}
	}
	best, bestLen := ModelInfo{}, 0
	for _, c := range append(candidates, dotVersions(candidates[len(candidates)-1])) {
		for key, info := range table {
			if len(key) > bestLen && len(c) > len(key) && strings.HasPrefix(c, key) &&
				strings.ContainsRune("-:.@_", rune(c[len(key)])) {
				best, bestLen = info, len(key)
			}
		}
	}
	if bestLen > 0 {
		return best, true
	}
	return UnknownModel, false
}

// ResolveModel is LookupModel with the user's override applied.
func ResolveModel(id string, override *ModelInfoOverride) ModelInfo {
	info, _ := LookupModel(id)
	if override != nil {
		info = override.Apply(info)
	}
	return info
}

// dotVersions turns Anthropic's "claude-sonnet-4-5-20250929" into "claude-sonnet-4.5-20250929":
// a single digit followed by "-digit" is a version, unless the next part is a long date.
func dotVersions(id string) string {
	if !strings.Contains(id, "claude") {
		return id
	}
	parts := strings.Split(id, "-")
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			if isDigits(parts[i-1]) && len(parts[i-1]) == 1 && isDigits(p) && len(p) == 1 {
				b.WriteByte('.')
			} else {
				b.WriteByte('-')
			}
		}
		b.WriteString(p)
	}
	return b.String()
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// Cost is the USD price of one request: the provider's own figure when it reported one,
// else the table's prices per million tokens.
func Cost(info ModelInfo, u Usage) float64 {
	if u.TotalCost != nil {
		return *u.TotalCost
	}
	const perM = 1e6
	return (float64(u.InputTokens)*info.InputPrice +
		float64(u.OutputTokens)*info.OutputPrice +
		float64(u.CacheReadTokens)*info.CacheReadPrice +
		float64(u.CacheWriteTokens)*info.CacheWritePrice) / perM
}
