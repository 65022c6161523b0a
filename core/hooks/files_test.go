package hooks

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// Hook files on both platforms: the execute bit elsewhere; on Windows a name with an
// extension Windows runs, the first of them when several exist, run through its interpreter.
func TestHookFilesPerPlatform(t *testing.T) {
	tests := []struct {
		name    string
		windows bool
		files   map[string]os.FileMode
		want    []string // Name, and "!" when not executable
	}{
		{"unix: the bare name with its execute bit", false,
			map[string]os.FileMode{"PreToolUse": 0o755, "TaskStart": 0o644, "PostToolUse.ps1": 0o755},
			[]string{"global/TaskStart!", "global/PreToolUse"}},
		{"windows: names with an extension Windows runs", true,
			map[string]os.FileMode{"PreToolUse.ps1": 0o644, "PreToolUse.cmd": 0o644, "TaskStart": 0o755, "TaskComplete.exe": 0o644},
			[]string{"global/TaskComplete.exe", "global/PreToolUse.cmd"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.windows && runtime.GOOS == "windows" {
				t.Skip("Windows files have no execute bit")
			}
			old := windowsFiles
			windowsFiles = tt.windows
			t.Cleanup(func() { windowsFiles = old })
			dir := t.TempDir()
			for name, mode := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), mode); err != nil {
					t.Fatal(err)
				}
			}
			hs, err := Discover(nil, dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range hs {
				n := h.Name
				if !h.Executable {
					n += "!"
				}
				got = append(got, n)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("hooks = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestHookCommandPerExtension(t *testing.T) {
	old := windowsFiles
	t.Cleanup(func() { windowsFiles = old })
	tests := []struct {
		windows bool
		path    string
		want    []string
	}{
		{false, "/w/.clinerules/hooks/PreToolUse", []string{"/w/.clinerules/hooks/PreToolUse"}},
		{true, `C:\w\PreToolUse.cmd`, []string{"cmd.exe", "/d", "/c", `C:\w\PreToolUse.cmd`}},
		{true, `C:\w\PreToolUse.BAT`, []string{"cmd.exe", "/d", "/c", `C:\w\PreToolUse.BAT`}},
		{true, `C:\w\PreToolUse.ps1`, []string{"powershell.exe", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-File", `C:\w\PreToolUse.ps1`}},
		{true, `C:\w\PreToolUse.exe`, []string{`C:\w\PreToolUse.exe`}},
	}
	for _, tt := range tests {
		windowsFiles = tt.windows
		if got := command(context.Background(), tt.path).Args; !slices.Equal(got, tt.want) {
			t.Errorf("command(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
