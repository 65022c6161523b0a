package policy

import (
	"fmt"
	"path"
	"slices"

	"github.com/cairnhq/cairn/core/config"
)

// Switch is where a switch was set: the most binding layer that set it the binding way.
// Layer "" means no layer did and today's settings and flags decide.
type Switch struct {
	Layer, Source string
}

// Set reports whether a layer set the switch.
func (w Switch) Set() bool { return w.Layer != "" }

// Refusal says that a switch refuses what a setting or flag asked for.
type Refusal struct {
	// Key is the policy key ("sandboxRequired", "networkAllowed", "yoloAllowed", "providers",
	// "models") and Want what the user asked for ("--no-sandbox", "the model gpt-5").
	Key, Want string
	Switch
}

// Error is the sentence the chat and the command line show.
func (r Refusal) Error() string {
	switch r.Key {
	case "sandboxRequired":
		return fmt.Sprintf("%s is refused: the %s policy %s requires the command sandbox (\"sandboxRequired\": true)", r.Want, r.Layer, r.Source)
	case "networkAllowed":
		return fmt.Sprintf("%s is refused: the %s policy %s keeps auto-approved commands off the network (\"networkAllowed\": false)", r.Want, r.Layer, r.Source)
	case "yoloAllowed":
		return fmt.Sprintf("%s is refused: the %s policy %s does not allow it (\"yoloAllowed\": false)", r.Want, r.Layer, r.Source)
	}
	return fmt.Sprintf("%s is refused: the %s policy %s does not list it in %q", r.Want, r.Layer, r.Source, r.Key)
}

// first returns the most binding layer for which set reports the binding value.
func (s *Set) first(set func(File) bool) Switch {
	if s == nil {
		return Switch{}
	}
	for _, l := range s.Layers {
		if set(l.File) {
			return Switch{Layer: l.Name, Source: l.Source}
		}
	}
	return Switch{}
}

// SandboxRequired is the layer that requires the command sandbox, if any: any layer may
// tighten, none loosens.
func (s *Set) SandboxRequired() Switch {
	return s.first(func(f File) bool { return f.SandboxRequired != nil && *f.SandboxRequired })
}

// NetworkDenied is the layer that keeps auto-approved commands off the network, if any.
func (s *Set) NetworkDenied() Switch {
	return s.first(func(f File) bool { return f.NetworkAllowed != nil && !*f.NetworkAllowed })
}

// YoloDenied is the layer that refuses --yolo, if any.
func (s *Set) YoloDenied() Switch {
	return s.first(func(f File) bool { return f.YoloAllowed != nil && !*f.YoloAllowed })
}

// ProviderRefused is the layer whose provider list leaves preset out, if any.
func (s *Set) ProviderRefused(preset string) Switch {
	return s.first(func(f File) bool { return len(f.Providers) > 0 && !globAny(f.Providers, preset) })
}

// ModelRefused is the layer whose model list leaves model out, if any.
func (s *Set) ModelRefused(model string) Switch {
	return s.first(func(f File) bool { return len(f.Models) > 0 && !globAny(f.Models, model) })
}

func globAny(patterns []string, s string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool {
		ok, err := path.Match(p, s)
		return p == s || err == nil && ok
	})
}

// Clamp applies the switches to settings: what a layer forbids is turned off, and each
// refusal is returned so that the chat or the command line can say so. Settings no layer
// touches come back as they were.
func (s *Set) Clamp(st config.Settings) (config.Settings, []Refusal) {
	var out []Refusal
	if w := s.SandboxRequired(); w.Set() && st.SandboxOff {
		st.SandboxOff = false
		out = append(out, Refusal{Key: "sandboxRequired", Want: "Running commands without the sandbox (sandboxDisabled, --no-sandbox)", Switch: w})
	}
	if w := s.NetworkDenied(); w.Set() && st.SandboxNetwork {
		st.SandboxNetwork = false
		out = append(out, Refusal{Key: "networkAllowed", Want: "The network for auto-approved commands (sandboxNetwork, --network)", Switch: w})
	}
	if w := s.YoloDenied(); w.Set() && st.AutoApprove.YOLO {
		st.AutoApprove.YOLO = false
		out = append(out, Refusal{Key: "yoloAllowed", Want: "YOLO (autoApprove.yolo, --yolo)", Switch: w})
	}
	return st, out
}

// CheckModel refuses a provider or model no layer lists, before any request is sent to it.
func (s *Set) CheckModel(preset, model string) error {
	if w := s.ProviderRefused(preset); w.Set() {
		name := preset
		if name == "" {
			name = "an OpenAI-compatible endpoint without a preset"
		}
		return Refusal{Key: "providers", Want: "The provider " + name, Switch: w}
	}
	if w := s.ModelRefused(model); w.Set() {
		return Refusal{Key: "models", Want: "The model " + model, Switch: w}
	}
	return nil
}
