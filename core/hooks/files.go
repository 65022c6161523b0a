package hooks

import (
	"context"
	"io/fs"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// windowsFiles is whether hook files follow Windows' rules. Windows has no execute bit: a hook
// there is a file named after its kind with an extension Windows runs.
var windowsFiles = runtime.GOOS == "windows"

// windowsExts are the extensions a Windows hook may have, in order of preference.
var windowsExts = []string{".exe", ".cmd", ".bat", ".ps1"}

// fileNames are the file names a hook of kind k may have: the bare name, or on Windows the
// name with one of windowsExts.
func fileNames(k Kind) []string {
	if !windowsFiles {
		return []string{string(k)}
	}
	out := make([]string, 0, len(windowsExts))
	for _, ext := range windowsExts {
		out = append(out, string(k)+ext)
	}
	return out
}

// executable reports whether a hook file may be run: by its extension on Windows, by its
// execute bit elsewhere.
func executable(file string, mode fs.FileMode) bool {
	if windowsFiles {
		ext := strings.ToLower(filepath.Ext(file))
		for _, e := range windowsExts {
			if ext == e {
				return true
			}
		}
		return false
	}
	return mode.Perm()&0o111 != 0
}

// command is the process that runs the hook file at path: the file itself, or on Windows the
// interpreter its extension needs (cmd.exe for .cmd/.bat, PowerShell for .ps1).
func command(ctx context.Context, path string) *exec.Cmd {
	if !windowsFiles {
		return exec.CommandContext(ctx, path)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".cmd", ".bat":
		return exec.CommandContext(ctx, "cmd.exe", "/d", "/c", path)
	case ".ps1":
		return exec.CommandContext(ctx, "powershell.exe", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-File", path)
	}
	return exec.CommandContext(ctx, path)
}
