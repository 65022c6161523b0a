package browser

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// candidates are the browsers looked for, in order: names on PATH first, then the usual
// install places of each system. Cairn never downloads a browser.
func candidates() []string {
	names := []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable",
		"microsoft-edge", "microsoft-edge-stable", "chrome", "msedge"}
	switch runtime.GOOS {
	case "darwin":
		names = append(names,
			"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
			"/Applications/Chromium.app/Contents/MacOS/Chromium",
			"/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge")
	case "windows":
		for _, env := range []string{"ProgramFiles", "ProgramFiles(x86)", "LocalAppData"} {
			base := os.Getenv(env)
			if base == "" {
				continue
			}
			names = append(names,
				filepath.Join(base, "Google", "Chrome", "Application", "chrome.exe"),
				filepath.Join(base, "Microsoft", "Edge", "Application", "msedge.exe"),
				filepath.Join(base, "Chromium", "Application", "chrome.exe"))
		}
	default:
		names = append(names, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/snap/bin/chromium",
			"/usr/bin/google-chrome", "/opt/google/chrome/chrome", "/usr/bin/microsoft-edge")
	}
	return names
}

// Find returns the browser to run: configured when set (it must exist), else the first
// Chromium, Chrome or Edge found on this machine.
func Find(configured string) (string, error) {
	if configured != "" {
		p, err := exec.LookPath(configured)
		if err != nil {
			return "", fmt.Errorf("%w: %s: %w", ErrNoBrowser, configured, err)
		}
		return p, nil
	}
	for _, c := range candidates() {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", ErrNoBrowser
}
