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

// TestCommandWaitFlag: --command-wait sets commandWaitSeconds for the run's own daemon (0 waits
// for ever); without it the settings' value stays; with --connect it becomes the task's own.
func TestCommandWaitFlag(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, c := range []struct {
		args []string
		want int
	}{{nil, 60}, {[]string{"--command-wait", "5"}, 5}, {[]string{"--command-wait", "0"}, 0}} {
		s, err := parseSettingsFlags(t, c.args...)
		if err != nil || s.CommandWaitSeconds != c.want {
			t.Errorf("%v: CommandWaitSeconds = %d, %v; want %d", c.args, s.CommandWaitSeconds, err, c.want)
		}
	}
	five := 5
	f := settingsFlags{commandWait: &five}
	if o, err := f.taskOverrides(); err != nil || o.CommandWaitSeconds == nil || o.GetCommandWaitSeconds() != 5 {
		t.Errorf("--command-wait 5 with --connect: overrides %v, %v; want command_wait_seconds 5", o, err)
	}
	f.commandWait = nil
	if o, err := f.taskOverrides(); err != nil || o != nil {
		t.Errorf("no flag: overrides %v, %v; want none", o, err)
	}
}

// TestSandboxFlags: --no-sandbox and --network set sandboxDisabled and sandboxNetwork for the
// run's own daemon (README "Security"); without them config.json decides; with --connect they
// become the task's own, and only a flag given is sent.
func TestSandboxFlags(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", home)
	if err := os.MkdirAll(filepath.Join(home, "cairn"), 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(home, "cairn", "config.json")
	for _, c := range []struct {
		name, file   string
		args         []string
		off, network bool
	}{
		{"no file, no flag: on, no network", "", nil, false, false},
		{"--no-sandbox", "", []string{"--no-sandbox"}, true, false},
		{"--network", "", []string{"--network"}, false, true},
		{"file off, no flag", `{"sandboxDisabled": true, "sandboxNetwork": true}`, nil, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if c.file != "" {
				if err := os.WriteFile(path, []byte(c.file), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			s, err := parseSettingsFlags(t, c.args...)
			if err != nil || s.SandboxOff != c.off || s.SandboxNetwork != c.network {
				t.Errorf("SandboxOff %v SandboxNetwork %v (%v); want %v %v", s.SandboxOff, s.SandboxNetwork, err, c.off, c.network)
			}
		})
	}
	f := settingsFlags{noSandbox: true, network: true}
	o, err := f.taskOverrides()
	if err != nil || o.NoSandbox == nil || !o.GetNoSandbox() || o.SandboxNetwork == nil || !o.GetSandboxNetwork() {
		t.Errorf("--no-sandbox --network with --connect: overrides %v, %v", o, err)
	}
	f = settingsFlags{}
	if o, err := f.taskOverrides(); err != nil || o != nil {
		t.Errorf("no flag: overrides %v, %v; want none (the daemon's settings decide)", o, err)
	}
}
