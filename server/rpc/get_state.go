package rpc

import (
	"context"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/llm/presets"
)

// GetState returns the settings without secrets.
func (s *Services) GetState(context.Context, *cairnv1.GetStateRequest) (*cairnv1.GetStateResponse, error) {
	return &cairnv1.GetStateResponse{Settings: toSettings(s.b.Settings.Get()), Version: s.b.Version, DataDir: s.b.DataDir,
		Presets: toPresets(presets.All())}, nil
}
