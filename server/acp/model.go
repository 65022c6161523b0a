package acp

import (
	"context"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// modelConfig is the id of the session config option that picks the session's model.
const modelConfig sdk.SessionConfigId = "model"

// listModelsWait bounds how long session/new waits for the endpoint's model list; without
// it the session offers the configured model only.
const listModelsWait = 2 * time.Second

// startModel is the model a new session starts with: the agent's override (the flags of
// `cairn acp`), else the shared settings'.
func (a *Agent) startModel(ctx context.Context) string {
	if m := a.o.Overrides.GetModel(); m != "" {
		return m
	}
	st, err := a.o.State.GetState(ctx, &cairnv1.GetStateRequest{})
	if err != nil {
		a.log.Warn("acp: reading the configured model", "err", err)
		return ""
	}
	return st.GetSettings().GetApi().GetModel()
}

// models lists the endpoint's models for the picker, current among them.
func (a *Agent) models(ctx context.Context, current string) []string {
	ctx, cancel := context.WithTimeout(ctx, listModelsWait)
	defer cancel()
	out := []string{}
	if current != "" {
		out = append(out, current)
	}
	resp, err := a.o.State.ListModels(ctx, &cairnv1.ListModelsRequest{})
	if err != nil {
		a.log.Info("acp: listing the endpoint's models; the session offers the configured one", "err", err)
		return out
	}
	for _, m := range resp.GetModels() {
		if m != current {
			out = append(out, m)
		}
	}
	return out
}

// configOptions are the session's config options: its model (a task override, README "Use
// Cairn in Zed, JetBrains, Neovim").
func (s *session) configOptions() []sdk.SessionConfigOption {
	s.mu.Lock()
	current, models := s.model, s.modelList
	s.mu.Unlock()
	if current == "" {
		return []sdk.SessionConfigOption{s.doneWhenOption()}
	}
	opts := sdk.SessionConfigSelectOptionsUngrouped{}
	for _, m := range models {
		opts = append(opts, sdk.SessionConfigSelectOption{Name: m, Value: sdk.SessionConfigValueId(m)})
	}
	o := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(current), sdk.SessionConfigSelectOptions{Ungrouped: &opts})
	o.Select.Id = modelConfig
	o.Select.Name = "Model"
	o.Select.Category = sdk.Ptr(sdk.SessionConfigOptionCategoryModel)
	return []sdk.SessionConfigOption{o, s.doneWhenOption()}
}

// setModel makes m the session's model: the task's own model from its next request on, or
// the model its task starts with. The shared settings never change.
func (s *session) setModel(ctx context.Context, m string) error {
	s.mu.Lock()
	id := s.taskID
	s.model, s.modelChosen = m, true
	known := false
	for _, x := range s.modelList {
		known = known || x == m
	}
	if !known {
		s.modelList = append(s.modelList, m)
	}
	s.mu.Unlock()
	if id == "" {
		return nil
	}
	if _, err := s.a.o.Tasks.UpdateTaskSettings(ctx, &cairnv1.UpdateTaskSettingsRequest{TaskId: id, Model: m}); err != nil {
		return rpcError("switching the model", err)
	}
	return nil
}

// SetSessionConfigOption sets the session's model, or its "done when" command.
func (a *Agent) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	v := p.ValueId
	if v == nil || v.ConfigId != modelConfig && v.ConfigId != doneWhenConfig || v.ConfigId == modelConfig && v.Value == "" {
		return sdk.SetSessionConfigOptionResponse{}, sdk.NewInvalidParams(map[string]any{"configId": "the session's options are \"model\", a model id, " +
			"and \"doneWhen\", a command"})
	}
	s, err := a.session(v.SessionId)
	if err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	if v.ConfigId == doneWhenConfig {
		if err := s.setDoneWhen(string(v.Value)); err != nil {
			return sdk.SetSessionConfigOptionResponse{}, err
		}
		return sdk.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions()}, nil
	}
	if err := s.setModel(ctx, string(v.Value)); err != nil {
		return sdk.SetSessionConfigOptionResponse{}, err
	}
	return sdk.SetSessionConfigOptionResponse{ConfigOptions: s.configOptions()}, nil
}
