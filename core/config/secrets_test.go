package config

import (
	"slices"
	"testing"
)

func TestSecretsScrubByNameAndValue(t *testing.T) {
	s := Default()
	s.API.APIKey = "sk-configured-key-123"
	s.API.Headers = map[string]string{"X-Org-Token": "org-token-456789", "Authorization": "Bearer tok-in-header-0001", "X-Debug": "1"}
	s.SecretEnv = []string{"ACME_TOKEN"}
	env := []string{
		"HOME=/home/u", "OPENAI_API_KEY=sk-other", "ACME_TOKEN=t", "MY_LLM_TOKEN=sk-configured-key-123",
		"ORG=org-token-456789", "RAW=tok-in-header-0001", "CI=1", "PATH=/bin", "SPACED= sk-configured-key-123 ",
	}
	got := s.Secrets().Scrub(env)
	want := []string{"HOME=/home/u", "CI=1", "PATH=/bin"}
	if !slices.Equal(got, want) {
		t.Fatalf("Scrub = %v, want %v", got, want)
	}
	if env[3] != "MY_LLM_TOKEN=sk-configured-key-123" {
		t.Fatalf("Scrub changed its input: %v", env)
	}
}

func TestSecretsIgnoreShortAndEmptyValues(t *testing.T) {
	var x Secrets
	x.AddValues("", "short", "  ", "long-enough-value", "long-enough-value")
	if !slices.Equal(x.Values, []string{"long-enough-value"}) {
		t.Fatalf("Values = %v", x.Values)
	}
	if x.Hides("EMPTY=") || x.Hides("S=short") || !x.Hides("K=long-enough-value") {
		t.Fatalf("Hides answers wrong for %v", x.Values)
	}
}
