// Package egress builds the one HTTP transport every outbound connection of the daemon goes
// through (README "Networks of organisations"): the model endpoints, web_fetch, MCP servers
// over HTTP, the catalogues of providers' models, and the proxy the browser is told of. It
// honours HTTPS_PROXY, HTTP_PROXY and NO_PROXY (VS Code's http.proxy reaches them through the
// extension) and trusts extra certificate authorities on top of the system's: the PEM files
// SSL_CERT_FILE and NODE_EXTRA_CA_CERTS name and the folders of SSL_CERT_DIR.
package egress

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"golang.org/x/net/http/httpproxy"
)

// ErrBadCA is an extra certificate file or folder that cannot be read or holds no
// certificate: the daemon refuses to start rather than fail every TLS connection later.
var ErrBadCA = errors.New("egress: extra CA certificates")

// Config is where connections go and whom they trust.
type Config struct {
	// HTTPSProxy and HTTPProxy are the proxies of https and http requests ("": none);
	// NoProxy lists the hosts reached directly, as NO_PROXY does. Requests to loopback
	// addresses and localhost never go through a proxy.
	HTTPSProxy, HTTPProxy, NoProxy string
	// CAFiles are PEM files and CADirs folders of PEM files whose certificates are trusted
	// on top of the system's.
	CAFiles, CADirs []string
}

// FromEnv reads the standard variables through getenv (os.Getenv): HTTPS_PROXY, HTTP_PROXY,
// NO_PROXY (or their lower-case forms), SSL_CERT_FILE, SSL_CERT_DIR (a list) and
// NODE_EXTRA_CA_CERTS.
func FromEnv(getenv func(string) string) Config {
	either := func(k string) string {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return v
		}
		return strings.TrimSpace(getenv(strings.ToLower(k)))
	}
	c := Config{HTTPSProxy: either("HTTPS_PROXY"), HTTPProxy: either("HTTP_PROXY"), NoProxy: either("NO_PROXY")}
	// A file both name (often the system's bundle) is one file to check and read.
	for _, k := range []string{"SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS"} {
		v := strings.TrimSpace(getenv(k))
		if v != "" && !slices.ContainsFunc(c.CAFiles, func(f string) bool { return filepath.Clean(f) == filepath.Clean(v) }) {
			c.CAFiles = append(c.CAFiles, v)
		}
	}
	for _, d := range filepath.SplitList(getenv("SSL_CERT_DIR")) {
		if d = strings.TrimSpace(d); d != "" {
			c.CADirs = append(c.CADirs, d)
		}
	}
	return c
}

// Proxy picks the proxy of a request (nil URL: none).
func (c Config) Proxy() func(*http.Request) (*url.URL, error) {
	f := (&httpproxy.Config{HTTPSProxy: c.HTTPSProxy, HTTPProxy: c.HTTPProxy, NoProxy: c.NoProxy}).ProxyFunc()
	return func(r *http.Request) (*url.URL, error) { return f(r.URL) }
}

// BrowserProxy is the --proxy-server value for Chromium ("" without a proxy) and the
// --proxy-bypass-list that goes with it.
func (c Config) BrowserProxy() (server, bypass string) {
	server = c.HTTPSProxy
	if server == "" {
		server = c.HTTPProxy
	}
	if server == "" {
		return "", ""
	}
	var hosts []string
	for _, h := range strings.Split(c.NoProxy, ",") {
		if h = strings.TrimSpace(h); h != "" {
			hosts = append(hosts, h)
		}
	}
	return server, strings.Join(hosts, ";")
}

// RootCAs is the system's pool with the extra certificates added; nil (the system's pool as
// crypto/tls takes it, loaded at the first TLS handshake) when there are none. A file or folder
// the system's loader reads itself (SSL_CERT_FILE and SSL_CERT_DIR of this process, where
// crypto/x509 honours them) is not an extra one: it is only checked to hold a certificate, and
// the certificates are not parsed a second time before the daemon's first client
// (docs/performance.md, "P5 — the daemon at rest").
func (c Config) RootCAs() (*x509.CertPool, error) {
	files, dirs, err := c.extra()
	if err != nil || len(files) == 0 && len(dirs) == 0 {
		return nil, err
	}
	// The command line's default transport and the daemon's are built from the same
	// variables in one process: the pool is read once for both.
	return once(&pools, strings.Join(files, "\x00")+"\x01"+strings.Join(dirs, "\x00"),
		func() (*x509.CertPool, error) { return loadPool(files, dirs) })
}

// pools holds, per list of extra files and folders, the pool built from them.
var pools sync.Map

// once returns f's answer for key, computing it at the first call for key in this process:
// m holds a func() (T, error) per key.
func once[T any](m *sync.Map, key string, f func() (T, error)) (T, error) {
	get, _ := m.LoadOrStore(key, sync.OnceValues(f))
	return get.(func() (T, error))()
}

// loadPool is the system's pool with the certificates of files and dirs added.
func loadPool(files, dirs []string) (*x509.CertPool, error) {
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadCA, err)
		}
		if !pool.AppendCertsFromPEM(data) {
			return nil, fmt.Errorf("%w: %s holds no PEM certificate", ErrBadCA, f)
		}
	}
	for _, d := range dirs {
		if err := eachFile(d, func(data []byte) { pool.AppendCertsFromPEM(data) }); err != nil {
			return nil, err
		}
	}
	return pool, nil
}

// eachFile hands fn the content of each file of the folder d. A folder of certificates also
// holds other files (hash links, READMEs): fn keeps those that parse, as OpenSSL reads them,
// and a file that cannot be read is passed over.
func eachFile(d string, fn func(data []byte)) error {
	entries, err := os.ReadDir(d)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrBadCA, err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		if data, err := os.ReadFile(filepath.Join(d, e.Name())); err == nil {
			fn(data)
		}
	}
	return nil
}

// extra returns the CA files and folders the system's pool does not already hold, having
// checked the others as RootCAs would: a file must hold a PEM certificate, a folder must be
// one.
func (c Config) extra() (files, dirs []string, err error) {
	sysFile, sysDirs := systemCAs(os.Getenv)
	for _, f := range c.CAFiles {
		if sysFile == "" || filepath.Clean(f) != sysFile {
			files = append(files, f)
			continue
		}
		ok, err := once(&checks, f, func() (bool, error) { return startsWithCertificate(f) })
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %w", ErrBadCA, err)
		}
		if !ok {
			return nil, nil, fmt.Errorf("%w: %s holds no PEM certificate", ErrBadCA, f)
		}
	}
	for _, d := range c.CADirs {
		if !slices.Contains(sysDirs, filepath.Clean(d)) {
			dirs = append(dirs, d)
			continue
		}
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			return nil, nil, fmt.Errorf("%w: %s is not a readable folder", ErrBadCA, d)
		}
	}
	return files, dirs, nil
}

// BrowserCAs returns the certificates (DER) of every CA file and folder named, for a browser
// that reads none of them (Chromium trusts its own store, and on Linux the NSS database in its
// home folder; core/tools/browser gives it one holding these). Unlike RootCAs it includes the
// files and folders crypto/x509 reads itself. Each certificate appears once; nil when none
// are named.
func (c Config) BrowserCAs() ([][]byte, error) {
	var out [][]byte
	seen := map[string]bool{}
	add := func(data []byte) int {
		n := 0
		for {
			var b *pem.Block
			if b, data = pem.Decode(data); b == nil {
				return n
			}
			if b.Type != "CERTIFICATE" || len(b.Headers) != 0 {
				continue
			}
			n++
			if !seen[string(b.Bytes)] {
				seen[string(b.Bytes)] = true
				out = append(out, b.Bytes)
			}
		}
	}
	for _, f := range c.CAFiles {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadCA, err)
		}
		if add(data) == 0 {
			return nil, fmt.Errorf("%w: %s holds no PEM certificate", ErrBadCA, f)
		}
	}
	for _, d := range c.CADirs {
		if err := eachFile(d, func(data []byte) { add(data) }); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// checks holds, per system CA file, its startsWithCertificate answer, read once per process
// like the pools: the command line's default transport and the daemon's check the same file
// in one process (cli.Main, server.Start).
var checks sync.Map

// startsWithCertificate reports whether the file f holds a PEM certificate, reading it only
// as far as its first one. The system's bundle, which SSL_CERT_FILE and NODE_EXTRA_CA_CERTS
// often both name, is a few hundred KB; every process of the binary checks it at start, and
// its certificates are read once, at the first TLS connection (docs/performance.md, "P5 —
// the daemon at rest").
func startsWithCertificate(f string) (bool, error) {
	file, err := os.Open(f)
	if err != nil {
		return false, err
	}
	defer func() { _ = file.Close() }() // read-only: nothing to lose
	var data []byte
	for chunk := 8 << 10; ; chunk = min(2*chunk, 1<<20) {
		n := len(data)
		data = slices.Grow(data, chunk)[:n+chunk]
		m, err := io.ReadFull(file, data[n:])
		data = data[:n+m]
		if holdsCertificate(data) {
			return true, nil
		}
		// Only the end of the file makes a "no": a block may be cut short by the chunk.
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// holdsCertificate reports whether data has a PEM block of a certificate, without parsing it.
func holdsCertificate(data []byte) bool {
	for {
		var b *pem.Block
		if b, data = pem.Decode(data); b == nil {
			return false
		}
		if b.Type == "CERTIFICATE" && len(b.Headers) == 0 {
			return true
		}
	}
}

// Transport is a fresh transport with the proxy and the trusted authorities, and otherwise
// http.DefaultTransport's settings (timeouts, HTTP/2, idle connections).
func (c Config) Transport() (*http.Transport, error) {
	pool, err := c.RootCAs()
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = c.Proxy()
	if pool != nil {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if tr.TLSClientConfig != nil {
			cfg = tr.TLSClientConfig.Clone()
		}
		cfg.RootCAs = pool
		tr.TLSClientConfig = cfg
	}
	return tr, nil
}
