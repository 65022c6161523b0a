package config

import (
	"slices"
	"strings"
)

// minSecretLen is the shortest value Secrets.Scrub matches by value: a header such as
// "X-Debug: 1" is configuration, not a secret, and matching it would strip harmless variables
// (CI=1) from every child.
const minSecretLen = 8

// Secrets are what a process the daemon starts (a command, a hook, an MCP server) must not be
// handed in its environment: the variables named in Names, and any variable whose value is one
// of Values, whatever its name (README, Security: "Keys stay with Cairn").
type Secrets struct {
	Names  []string
	Values []string
}

// Secrets returns the settings' secrets: the names of SecretEnvNames, and as values the API key
// and the custom header values (for a header of the form "Bearer TOKEN", TOKEN as well), and the
// shared key and header values that a task's Overrides replaced.
func (s Settings) Secrets() Secrets {
	x := Secrets{Names: s.SecretEnvNames()}
	x.AddValues(s.API.APIKey)
	x.AddValues(s.otherSecrets...)
	for _, v := range s.API.Headers {
		x.AddValues(v)
		if f := strings.Fields(v); len(f) > 1 {
			x.AddValues(f[len(f)-1])
		}
	}
	return x
}

// AddValues adds secret values, skipping empty, short and repeated ones.
func (x *Secrets) AddValues(values ...string) {
	for _, v := range values {
		v = strings.TrimSpace(v)
		if len(v) >= minSecretLen && !slices.Contains(x.Values, v) {
			x.Values = append(x.Values, v)
		}
	}
}

// AddNames adds variable names, skipping empty and repeated ones.
func (x *Secrets) AddNames(names ...string) {
	for _, n := range names {
		if n != "" && !slices.Contains(x.Names, n) {
			x.Names = append(x.Names, n)
		}
	}
}

// Hides reports whether the environment entry kv ("NAME=value") is a secret.
func (x Secrets) Hides(kv string) bool {
	name, value, _ := strings.Cut(kv, "=")
	if slices.Contains(x.Names, name) {
		return true
	}
	value = strings.TrimSpace(value)
	return value != "" && slices.Contains(x.Values, value)
}

// Scrub returns env ("NAME=value" entries, as os.Environ gives them) without the secrets, in
// its order. env itself is not changed.
func (x Secrets) Scrub(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !x.Hides(kv) {
			out = append(out, kv)
		}
	}
	return out
}
