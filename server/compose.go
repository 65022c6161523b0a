package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/cairnhq/cairn/server/hostbridge"
	"github.com/cairnhq/cairn/server/rpc"

	"github.com/cairnhq/cairn/core/agent"
	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/presets"
	"github.com/cairnhq/cairn/core/mcp"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

// composer is the daemon's side of core/agent's Env: the live settings and the connected
// editors. It also keeps the file indexes the @-autocomplete uses.
type composer struct {
	settings *config.Holder
	hosts    *hostbridge.Registry
	agent    agent.Config
	mcp      *mcp.Hub
	logger   *slog.Logger

	// mu guards indexes.
	mu      sync.Mutex
	indexes map[string]*workspace.Index
}

var (
	_ agent.Env = (*composer)(nil)
	_ rpc.Env   = (*composer)(nil)
)

// Models lists an endpoint's models the way its preset reads them, caching catalogues in the
// data dir (rpc.Env).
func (c *composer) Models(ctx context.Context, preset, baseURL, apiKey string) ([]presets.Model, error) {
	return presets.List(ctx, presets.Lookup(preset), presets.Endpoint{BaseURL: baseURL, APIKey: apiKey, CacheDir: c.agent.DataDir,
		Client: c.agent.HTTPClient})
}

// Settings implements agent.Env.
func (c *composer) Settings() config.Settings { return c.settings.Get() }

// Editor implements agent.Env: a handle that finds the editor's connection on every call.
func (c *composer) Editor(id string, fallback tools.Host) (tools.Host, string) {
	name := ""
	if h, ok := c.hosts.Get(id); ok {
		name = h.Hello().GetIdeName()
	}
	return c.hosts.Ref(id, fallback), name
}

// Index returns the file index of a workspace root, built once and kept current (rpc.Env).
func (c *composer) Index(ctx context.Context, root string) (*workspace.Index, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ix, ok := c.indexes[root]; ok {
		return ix, nil
	}
	ws, err := workspace.New(root)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", task.ErrBadRequest, err)
	}
	ix, err := workspace.NewIndex(context.WithoutCancel(ctx), ws, c.agent.FileLists)
	if err != nil {
		return nil, err
	}
	c.indexes[root] = ix
	return ix, nil
}

func (c *composer) closeIndexes() {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, ix := range c.indexes {
		errs = append(errs, ix.Close())
	}
	if err := errors.Join(errs...); err != nil {
		c.logger.Warn("closing file indexes", "err", err)
	}
	c.indexes = map[string]*workspace.Index{}
}
