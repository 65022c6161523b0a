//go:build !linux

package cli

import (
	"os/exec"
	"runtime"
	"strings"
)

// kernel names the running kernel where uname can say (macOS), else "".
func kernel() string {
	if runtime.GOOS != "darwin" {
		return ""
	}
	out, err := exec.Command("uname", "-sr").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// platformFacts: the Linux facts (Landlock, user namespaces) mean nothing here; the sandbox
// line says what the platform has.
func platformFacts() []string { return nil }
