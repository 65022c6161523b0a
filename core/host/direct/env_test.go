//go:build unix

package direct

import (
	"slices"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/config"
)

func TestChildEnvHidesSecrets(t *testing.T) {
	base := []string{"HOME=/home/u", "OPENAI_API_KEY=sk-1", "ANTHROPIC_API_KEY=sk-2", "ACME_TOKEN=t",
		"OPENAI_API_KEY_HINT=keep", "TERM=xterm", "PATH=/bin"}
	cases := []struct {
		name       string
		hide       []string
		keep, drop []string
	}{
		{"defaults", config.DefaultSecretEnv, []string{"HOME=/home/u", "ACME_TOKEN=t", "OPENAI_API_KEY_HINT=keep", "PATH=/bin"},
			[]string{"OPENAI_API_KEY=sk-1", "ANTHROPIC_API_KEY=sk-2", "TERM=xterm"}},
		{"user names too", append(slices.Clone(config.DefaultSecretEnv), "ACME_TOKEN"), []string{"HOME=/home/u"},
			[]string{"ACME_TOKEN=t", "OPENAI_API_KEY=sk-1"}},
		{"nothing hidden", nil, []string{"OPENAI_API_KEY=sk-1", "ACME_TOKEN=t"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := childEnv(base, config.Secrets{Names: c.hide})
			for _, kv := range c.keep {
				if !slices.Contains(env, kv) {
					t.Errorf("%s missing from %v", kv, env)
				}
			}
			for _, kv := range c.drop {
				if slices.Contains(env, kv) {
					t.Errorf("%s still in %v", kv, env)
				}
			}
			if !slices.Contains(env, "TERM=dumb") || !slices.Contains(env, "CAIRN_ACTIVE=true") {
				t.Errorf("terminal settings missing from %v", env)
			}
		})
	}
}

// TestCommandsDoNotSeeKeys runs `env` as the agent would and looks for the keys in its output.
func TestCommandsDoNotSeeKeys(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-openai-secret")
	t.Setenv("CAIRN_API_KEY", "sk-cairn-secret")
	t.Setenv("ACME_TOKEN", "acme-secret")
	t.Setenv("HARMLESS_SETTING", "visible")
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			h := New("/bin/sh", nil, "ACME_TOKEN")
			term := h.Terminal().(*Terminal)
			term.noPTY = m.noPTY
			out, code := runAll(t, term, t.TempDir(), "env")
			if code != 0 {
				t.Fatalf("env exited %d: %s", code, out)
			}
			for _, secret := range []string{"sk-openai-secret", "sk-cairn-secret", "acme-secret", "OPENAI_API_KEY"} {
				if strings.Contains(out, secret) {
					t.Errorf("env output contains %q", secret)
				}
			}
			if !strings.Contains(out, "HARMLESS_SETTING=visible") {
				t.Errorf("env output lacks the ordinary variable:\n%s", out)
			}
		})
	}
}

// TestCommandsDoNotSeeSecretValues: a variable whose value is the configured key is removed
// whatever its name (MY_LLM_TOKEN holding the API key).
func TestCommandsDoNotSeeSecretValues(t *testing.T) {
	t.Setenv("MY_LLM_TOKEN", "sk-value-secret-1234")
	t.Setenv("HARMLESS_SETTING", "visible")
	s := config.Default()
	s.API.APIKey = "sk-value-secret-1234"
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			term := NewWithSecrets("/bin/sh", nil, s.Secrets()).Terminal().(*Terminal)
			term.noPTY = m.noPTY
			out, code := runAll(t, term, t.TempDir(), "env")
			if code != 0 {
				t.Fatalf("env exited %d: %s", code, out)
			}
			if strings.Contains(out, "sk-value-secret-1234") || strings.Contains(out, "MY_LLM_TOKEN") {
				t.Errorf("env output shows the key held under another name:\n%s", out)
			}
			if !strings.Contains(out, "HARMLESS_SETTING=visible") {
				t.Errorf("env output lacks the ordinary variable:\n%s", out)
			}
		})
	}
}
