package acp

import (
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// doneWhenConfig is the id of the session config option that holds the session's "done when"
// command (README, "Done when"): the session's task accepts a completion only when it exits 0.
// Its value is the command line itself; noCheck (or an empty value) means none.
const doneWhenConfig sdk.SessionConfigId = "doneWhen"

// noCheck is the option's value for "no check": the model decides when the task is done.
const noCheck sdk.SessionConfigValueId = "none"

// doneWhenNow is the session's "done when" command: the client's choice, else the agent's
// (`cairn acp --until`).
func (s *session) doneWhenNow() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.doneWhenSet {
		return s.doneWhen
	}
	return s.a.o.Overrides.GetDoneWhen()
}

// doneWhenOption is the "done when" option: no check, or the command in force (the agent's
// --until is offered too, so a client can go back to it).
func (s *session) doneWhenOption() sdk.SessionConfigOption {
	current := s.doneWhenNow()
	opts := sdk.SessionConfigSelectOptionsUngrouped{{Name: "No check", Value: noCheck}}
	for _, c := range []string{s.a.o.Overrides.GetDoneWhen(), current} {
		if c != "" && !containsValue(opts, c) {
			opts = append(opts, sdk.SessionConfigSelectOption{Name: c, Value: sdk.SessionConfigValueId(c)})
		}
	}
	value := noCheck
	if current != "" {
		value = sdk.SessionConfigValueId(current)
	}
	o := sdk.NewSessionConfigOptionSelect(value, sdk.SessionConfigSelectOptions{Ungrouped: &opts})
	o.Select.Id = doneWhenConfig
	o.Select.Name = "Done when"
	o.Select.Description = sdk.Ptr("A command that must exit 0 before the task's result is accepted (e.g. go test ./...); set before the first prompt.")
	return o
}

func containsValue(opts sdk.SessionConfigSelectOptionsUngrouped, v string) bool {
	for _, o := range opts {
		if string(o.Value) == v {
			return true
		}
	}
	return false
}

// setDoneWhen sets the command the session's task starts with. A task already running keeps
// the check it started with.
func (s *session) setDoneWhen(v string) error {
	v = strings.TrimSpace(v)
	if sdk.SessionConfigValueId(v) == noCheck {
		v = ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.taskID != "" {
		return sdk.NewInvalidParams(map[string]any{"configId": "the \"done when\" check is set before the session's first prompt"})
	}
	s.doneWhen, s.doneWhenSet = v, true
	return nil
}
