package rpc

import (
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/presets"
	"github.com/cairnhq/cairn/core/store"
)

func toPresets(ps []presets.Preset) []*cairnv1.ProviderPreset {
	out := make([]*cairnv1.ProviderPreset, 0, len(ps))
	for _, p := range ps {
		out = append(out, &cairnv1.ProviderPreset{Id: p.ID, Name: p.Name, BaseUrl: p.BaseURL,
			NeedsKey: p.Auth != presets.AuthNone, CacheControl: p.CacheControl, Local: p.Local, Azure: p.Auth == presets.AuthAzure})
	}
	return out
}

func toModelEntry(m presets.Model) *cairnv1.ModelEntry {
	return &cairnv1.ModelEntry{Id: clean(m.ID), ContextWindow: int64(m.ContextWindow), MaxOutputTokens: int64(m.MaxOutput),
		InputPrice: m.InputPrice, OutputPrice: m.OutputPrice, CacheReadPrice: m.CacheReadPrice, CacheWritePrice: m.CacheWritePrice,
		PricesKnown: m.PricesKnown}
}

// pricesKnown tells whether a stored task's cost means something: the provider reported one,
// or the model table prices its model. A task of an unpriced model shows "price unknown".
func pricesKnown(m store.Meta) bool {
	if m.Cost > 0 {
		return true
	}
	info, ok := llm.LookupModel(m.Model)
	return ok && (info.InputPrice > 0 || info.OutputPrice > 0)
}
