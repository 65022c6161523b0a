package cli

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairnhq/cairn/core/config"
)

// TestBrowserFlags: --browser and --no-browser override the browser setting of config.json
// either way, without a flag the file decides, and the two flags together are refused.
func TestBrowserFlags(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	if err := os.MkdirAll(filepath.Join(home, "cairn"), 0o700); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, file string
		args       []string
		want       bool
	}{
		{"no file, no flag: the default", "", nil, true},
		{"file off, no flag", `{"browserEnabled": false}`, nil, false},
		{"file off, --browser", `{"browserEnabled": false}`, []string{"--browser"}, true},
		{"file on, --no-browser", `{"browserEnabled": true}`, []string{"--no-browser"}, false},
		{"no file, --no-browser", "", []string{"--no-browser"}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(home, "cairn", "config.json")
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if c.file != "" {
				if err := os.WriteFile(path, []byte(c.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			s, err := parseSettingsFlags(t, c.args...)
			if err != nil {
				t.Fatal(err)
			}
			if s.BrowserEnabled != c.want {
				t.Errorf("BrowserEnabled = %v, want %v", s.BrowserEnabled, c.want)
			}
		})
	}
	if _, err := parseSettingsFlags(t, "--browser", "--no-browser"); err == nil {
		t.Error("--browser with --no-browser was accepted")
	}
}

func parseSettingsFlags(t *testing.T, args ...string) (config.Settings, error) {
	t.Helper()
	var f settingsFlags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f.settings()
}
