package config

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestOverridesApply(t *testing.T) {
	shared := Default()
	shared.API = API{BaseURL: "https://shared.example/v1", APIKey: "sk-shared-0123456789", Model: "big",
		Headers: map[string]string{"X-Org": "org-secret-value"}, Preset: "openrouter"}
	yes, wait := false, 0
	o := Overrides{Model: "small", ToolFormat: "xml", ReasoningEffort: "low", MaxRequests: 7, MaxCost: 0.5,
		AutoApprove: &AutoApprove{Enabled: true, EditFiles: true}, Browser: &yes, CommandWait: &wait}
	s := o.Apply(shared)
	if s.API.BaseURL != shared.API.BaseURL || s.API.APIKey != shared.API.APIKey || s.API.Preset != "openrouter" {
		t.Errorf("same endpoint: the shared key and preset stay: %+v", s.API)
	}
	if s.API.Model != "small" || s.API.ToolFormat != "xml" || s.API.ReasoningEffort != "low" {
		t.Errorf("model fields not applied: %+v", s.API)
	}
	if s.TaskLimits != (TaskLimits{MaxRequests: 7, MaxCost: 0.5}) || s.BrowserEnabled {
		t.Errorf("limits %+v browser %v", s.TaskLimits, s.BrowserEnabled)
	}
	if s.CommandWaitSeconds != 0 || shared.CommandWaitSeconds != 60 {
		t.Errorf("command wait %d (shared %d); want the task's 0 beside the shared 60", s.CommandWaitSeconds, shared.CommandWaitSeconds)
	}
	if bad := -1; (Overrides{CommandWait: &bad}).Check() == nil {
		t.Error("a negative command wait passed Check")
	}
	if !s.AutoApprove.EditFiles || s.AutoApprove.ReadFiles {
		t.Errorf("the task's policy replaces the shared one: %+v", s.AutoApprove)
	}
	if !slices.Equal(s.AutoApprove.DenyList, shared.AutoApprove.DenyList) {
		t.Errorf("a policy without a deny list keeps the shared deny list: %v", s.AutoApprove.DenyList)
	}
	if shared.API.Model != "big" || !shared.AutoApprove.ReadFiles {
		t.Errorf("Apply changed the shared settings: %+v", shared)
	}
}

// An endpoint of the task's own never receives the shared key or headers, and they stay
// secrets of its children.
func TestOverridesOtherEndpointGetsNoSharedKey(t *testing.T) {
	shared := Default()
	shared.API = API{BaseURL: "https://shared.example/v1", APIKey: "sk-shared-0123456789",
		Headers: map[string]string{"X-Org": "org-secret-value"}, Preset: "openrouter"}
	s := Overrides{BaseURL: "http://127.0.0.1:9/v1"}.Apply(shared)
	if s.API.APIKey != "" || s.API.Headers != nil || s.API.Preset != "" {
		t.Fatalf("the shared key, headers or preset went to another endpoint: %+v", s.API)
	}
	for _, v := range []string{"sk-shared-0123456789", "org-secret-value"} {
		if !slices.Contains(s.Secrets().Values, v) {
			t.Errorf("%q is no longer scrubbed from the task's children: %v", v, s.Secrets().Values)
		}
	}
	s = Overrides{BaseURL: "http://127.0.0.1:9/v1", APIKey: "sk-own-0123456789"}.Apply(shared)
	if s.API.APIKey != "sk-own-0123456789" {
		t.Errorf("own key: %q", s.API.APIKey)
	}
	if !slices.Contains(s.Secrets().Values, "sk-own-0123456789") || !slices.Contains(s.Secrets().Values, "sk-shared-0123456789") {
		t.Errorf("both keys must be scrubbed: %v", s.Secrets().Values)
	}
}

func TestOverridesKeyIsNeverSaved(t *testing.T) {
	b, err := json.Marshal(Overrides{APIKey: "sk-own-0123456789", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "sk-own") {
		t.Fatalf("the key was serialised: %s", b)
	}
	if (Overrides{}).IsZero() != true || (Overrides{APIKey: "k"}).IsZero() {
		t.Error("IsZero")
	}
}

func TestWithApprovals(t *testing.T) {
	p, err := Default().AutoApprove.WithApprovals([]string{"edit", " command", ""}, false)
	if err != nil {
		t.Fatal(err)
	}
	if !p.ReadFiles || !p.EditFiles || !p.AllCommands || p.YOLO || p.Protected {
		t.Errorf("policy %+v", p)
	}
	if p, _ = (AutoApprove{}).WithApprovals(nil, true); !p.YOLO {
		t.Error("yolo")
	}
	if _, err := (AutoApprove{}).WithApprovals([]string{"everything"}, false); err == nil ||
		!strings.Contains(err.Error(), `"everything"`) {
		t.Errorf("unknown category: %v", err)
	}
	if err := (Overrides{ToolFormat: "json"}).Check(); err == nil {
		t.Error("a bad tool format passes Check")
	}
	if err := (Overrides{MaxCost: -1}).Check(); err == nil {
		t.Error("a negative cost passes Check")
	}
}

// TestOverridesSandbox: a task's --no-sandbox and --network (README "Security") change that
// task's settings only, survive the save, and a resume's value replaces the saved one.
func TestOverridesSandbox(t *testing.T) {
	yes, no := true, false
	shared := Default()
	shared.SandboxMaskedPaths = []string{"~/.secrets"}
	cases := []struct {
		name         string
		o            Overrides
		off, network bool
	}{
		{"none", Overrides{}, false, false},
		{"no-sandbox", Overrides{NoSandbox: &yes}, true, false},
		{"network", Overrides{Network: &yes}, false, true},
		{"both", Overrides{NoSandbox: &yes, Network: &yes}, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := c.o.Apply(shared)
			if s.SandboxOff != c.off || s.SandboxNetwork != c.network {
				t.Errorf("SandboxOff %v SandboxNetwork %v; want %v %v", s.SandboxOff, s.SandboxNetwork, c.off, c.network)
			}
			if !slices.Equal(s.SandboxMaskedPaths, shared.SandboxMaskedPaths) {
				t.Errorf("the masked paths are the shared ones: %v", s.SandboxMaskedPaths)
			}
			if c.o.IsZero() != (c.name == "none") {
				t.Errorf("IsZero = %v", c.o.IsZero())
			}
		})
	}
	if shared.SandboxOff || shared.SandboxNetwork {
		t.Error("Apply changed the shared settings")
	}

	// A task's "on" wins over a shared setting that turns the sandbox off.
	off := shared
	off.SandboxOff, off.SandboxNetwork = true, true
	if s := (Overrides{NoSandbox: &no, Network: &no}).Apply(off); s.SandboxOff || s.SandboxNetwork {
		t.Errorf("the task's own false did not replace the shared true: %v %v", s.SandboxOff, s.SandboxNetwork)
	}

	saved := Overrides{NoSandbox: &yes, Network: &yes}
	b, err := json.Marshal(saved)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != `{"noSandbox":true,"sandboxNetwork":true}` {
		t.Errorf("saved as %s", got)
	}
	var back Overrides
	if err := json.Unmarshal(b, &back); err != nil || back.NoSandbox == nil || !*back.NoSandbox || back.Network == nil || !*back.Network {
		t.Errorf("read back %+v, %v", back, err)
	}
	if w := back.With(Overrides{Network: &no}); w.Network == nil || *w.Network || w.NoSandbox == nil || !*w.NoSandbox {
		t.Errorf("With: %+v", w)
	}
}
