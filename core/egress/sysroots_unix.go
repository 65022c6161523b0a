//go:build aix || dragonfly || freebsd || linux || netbsd || openbsd || solaris

package egress

import (
	"path/filepath"
	"strings"
)

// systemCAs are the file and folders of certificates crypto/x509 loads into the system's pool
// on these systems, as getenv (the process's environment) names them: SSL_CERT_FILE replaces
// its list of bundles, SSL_CERT_DIR (":"-separated) its list of folders. "" and nil when unset:
// the default locations are not extra authorities anyone names.
func systemCAs(getenv func(string) string) (file string, dirs []string) {
	if f := getenv("SSL_CERT_FILE"); f != "" {
		file = filepath.Clean(f)
	}
	if d := getenv("SSL_CERT_DIR"); d != "" {
		for _, p := range strings.Split(d, ":") {
			if p != "" {
				dirs = append(dirs, filepath.Clean(p))
			}
		}
	}
	return file, dirs
}
