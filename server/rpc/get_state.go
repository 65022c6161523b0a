package rpc

import (
	"context"
	"os"
	"time"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/agent"
	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/presets"
	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/task"
)

// GetState returns the settings without secrets.
func (s *Services) GetState(context.Context, *cairnv1.GetStateRequest) (*cairnv1.GetStateResponse, error) {
	set := s.b.Settings.Get()
	resp := &cairnv1.GetStateResponse{Settings: toSettings(set), Version: s.b.Version, DataDir: s.b.Dirs.Data,
		Presets: toPresets(presets.All()), Browser: browserStatus(set, nil),
		Sandbox: toSandboxStatus(sandboxStatus(set, sandbox.Probe())),
		Pid:     int32(os.Getpid()), IdleExitSeconds: int64(s.b.IdleExit / time.Second)}
	if s.b.SearchIndexes != nil {
		for _, ix := range s.b.SearchIndexes.List() {
			resp.Indexes = append(resp.Indexes, &cairnv1.IndexStatus{Root: ix.Root, Ready: ix.Ready, Files: int64(ix.Files)})
		}
	}
	return resp, nil
}

// sandboxStatus is how commands run under the shared settings (README "Security").
func sandboxStatus(set config.Settings, st sandbox.Status) task.Sandbox {
	sb := task.Sandbox{Status: st, Off: set.SandboxOff, Network: set.SandboxNetwork}
	if sb.Off {
		sb.OffBy = "sandboxDisabled setting"
	}
	return sb
}

// browserStatus names the browser the settings lead to, or says why the browser is off, for
// the settings view (README "Browser and the web"); find nil is the real search.
func browserStatus(set config.Settings, find func(string) (string, error)) *cairnv1.BrowserStatus {
	if !set.BrowserEnabled {
		return &cairnv1.BrowserStatus{OffReason: "The browser setting is off."}
	}
	found, err := agent.BrowserFound(set, find)
	if err != nil {
		return &cairnv1.BrowserStatus{OffReason: "No Chromium or Chrome was found on this machine: install one or set the browser executable (" + err.Error() + ")."}
	}
	return &cairnv1.BrowserStatus{Found: found}
}
