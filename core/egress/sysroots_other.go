//go:build !(aix || dragonfly || freebsd || linux || netbsd || openbsd || solaris)

package egress

// systemCAs is empty where crypto/x509 does not read SSL_CERT_FILE and SSL_CERT_DIR (macOS and
// Windows ask the system's verifier): every file and folder named is an extra one.
func systemCAs(func(string) string) (file string, dirs []string) { return "", nil }
