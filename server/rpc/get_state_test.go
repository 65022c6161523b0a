package rpc

import (
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/tools/browser"
)

// TestBrowserStatus: the settings view is told the browser found, the remote address, or why
// the browser is off.
func TestBrowserStatus(t *testing.T) {
	found := func(string) (string, error) { return "/opt/test/chromium", nil }
	none := func(string) (string, error) { return "", browser.ErrNoBrowser }
	on := config.Default()
	if st := browserStatus(on, found); st.GetFound() != "/opt/test/chromium" || st.GetOffReason() != "" {
		t.Errorf("found: %v", st)
	}
	if st := browserStatus(on, none); st.GetFound() != "" || !strings.Contains(st.GetOffReason(), "No Chromium or Chrome") {
		t.Errorf("none found: %v", st)
	}
	remote := on
	remote.BrowserRemoteURL = "http://localhost:9222"
	if st := browserStatus(remote, none); st.GetFound() != "http://localhost:9222" {
		t.Errorf("remote: %v", st)
	}
	off := on
	off.BrowserEnabled = false
	if st := browserStatus(off, found); st.GetFound() != "" || !strings.Contains(st.GetOffReason(), "setting is off") {
		t.Errorf("off: %v", st)
	}
}
