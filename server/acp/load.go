package acp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/cairnhq/cairn/core/workspace"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// sessionsDir is where a session's task is written down, one file per session named by its
// id and holding the task id, so that session/load finds the task from another process.
func (a *Agent) sessionsDir(ctx context.Context) (string, error) {
	st, err := a.o.State.GetState(ctx, &cairnv1.GetStateRequest{})
	if err != nil {
		return "", err
	}
	if st.GetDataDir() == "" {
		return "", errors.New("the daemon names no data dir")
	}
	return filepath.Join(st.GetDataDir(), "acp-sessions"), nil
}

// remember writes down the task of a session.
func (a *Agent) remember(ctx context.Context, id sdk.SessionId, taskID string) error {
	dir, err := a.sessionsDir(ctx)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return workspace.WriteFileAtomic(filepath.Join(dir, string(id)), []byte(taskID+"\n"))
}

// taskOf is the task of a session written down by remember; a session id that was never
// written down is taken as a task id (as `cairn history` lists them).
func (a *Agent) taskOf(ctx context.Context, id sdk.SessionId) (string, error) {
	if strings.ContainsAny(string(id), `/\`) || strings.HasPrefix(string(id), ".") || id == "" {
		return "", sdk.NewInvalidParams(map[string]any{"sessionId": "not a session id"})
	}
	dir, err := a.sessionsDir(ctx)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(dir, string(id)))
	if errors.Is(err, fs.ErrNotExist) {
		return string(id), nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// LoadSession reopens a session's task from history, replays its conversation as
// session/update notifications, and answers once the replay is sent; the next prompt answers
// the task's resume question. A task another process holds is refused by the daemon.
func (a *Agent) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	if err := a.unconfigured(); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if !filepath.IsAbs(p.Cwd) {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidParams(map[string]any{"cwd": "must be an absolute path"})
	}
	a.mu.Lock()
	_, open := a.sessions[p.SessionId]
	a.mu.Unlock()
	if open {
		return sdk.LoadSessionResponse{}, sdk.NewInvalidRequest(map[string]any{"sessionId": "already open in this connection"})
	}
	taskID, err := a.taskOf(ctx, p.SessionId)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	roots := []string{filepath.Clean(p.Cwd)}
	for _, d := range p.AdditionalDirectories {
		roots = append(roots, filepath.Clean(d))
	}
	s := newSession(a, p.SessionId, roots)
	if s.mcpJSON, err = mcpServersJSON(p.McpServers); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if err := s.connectHost(ctx); err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if _, err := a.o.Tasks.ResumeTask(ctx, &cairnv1.ResumeTaskRequest{TaskId: taskID, Overrides: s.overrides(), HostId: s.hostID()}); err != nil {
		s.stop()
		return sdk.LoadSessionResponse{}, rpcError("reopening task "+taskID, err)
	}
	a.mu.Lock()
	a.sessions[s.id] = s
	a.mu.Unlock()
	s.announced = true
	s.announceCommands(ctx)
	replayed := s.followFrom(taskID, true)
	select {
	case st := <-replayed:
		// The model picker is offered again, on the model the task answers with.
		model := st.GetModel()
		if model == "" {
			model = a.startModel(ctx)
		}
		models := a.models(ctx, model)
		s.mu.Lock()
		mode := taskMode(st)
		s.mode, s.model, s.modelList = mode, model, models
		s.mu.Unlock()
		return sdk.LoadSessionResponse{Modes: a.modeState(ctx, s.roots, mode), ConfigOptions: s.configOptions()}, nil
	case <-ctx.Done():
		return sdk.LoadSessionResponse{}, fmt.Errorf("loading the session: %w", ctx.Err())
	}
}
