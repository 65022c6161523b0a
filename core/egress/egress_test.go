package egress

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestFromEnv(t *testing.T) {
	env := map[string]string{"https_proxy": "http://p:3128", "NO_PROXY": "internal.corp,.svc", "SSL_CERT_FILE": "/a.pem",
		"NODE_EXTRA_CA_CERTS": "/b.pem", "SSL_CERT_DIR": "/c" + string(filepath.ListSeparator) + "/d"}
	c := FromEnv(func(k string) string { return env[k] })
	if c.HTTPSProxy != "http://p:3128" || c.HTTPProxy != "" || c.NoProxy != "internal.corp,.svc" {
		t.Errorf("proxies: %+v", c)
	}
	if len(c.CAFiles) != 2 || len(c.CADirs) != 2 {
		t.Errorf("authorities: %+v", c)
	}
	// The system's bundle named by both variables is one file.
	same := map[string]string{"SSL_CERT_FILE": "/etc/ssl/certs/ca.pem", "NODE_EXTRA_CA_CERTS": "/etc/ssl/certs/./ca.pem"}
	if got := FromEnv(func(k string) string { return same[k] }).CAFiles; !slices.Equal(got, []string{"/etc/ssl/certs/ca.pem"}) {
		t.Errorf("one file named twice: CAFiles = %q", got)
	}
	pick := c.Proxy()
	for url, want := range map[string]string{
		"https://api.openai.com/v1": "http://p:3128",
		"https://a.internal.corp/":  "",
		"https://x.svc/":            "",
		"https://127.0.0.1:8080/":   "", // loopback never goes through a proxy
		"http://plain.example/":     "", // no HTTP_PROXY
	} {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		u, err := pick(req)
		got := ""
		if u != nil {
			got = u.String()
		}
		if err != nil || got != want {
			t.Errorf("%s: proxy %q (%v), want %q", url, got, err, want)
		}
	}
	if s, b := c.BrowserProxy(); s != "http://p:3128" || b != "internal.corp;.svc" {
		t.Errorf("browser proxy %q bypass %q", s, b)
	}
}

func TestBadCA(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junk, []byte("not a certificate"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]Config{
		"missing file": {CAFiles: []string{filepath.Join(dir, "absent.pem")}},
		"no PEM":       {CAFiles: []string{junk}},
		"missing dir":  {CADirs: []string{filepath.Join(dir, "absent")}},
	} {
		if _, err := c.Transport(); !errors.Is(err, ErrBadCA) {
			t.Errorf("%s: %v", name, err)
		}
	}
	tr, err := Config{}.Transport()
	if err != nil || tr.TLSClientConfig != nil && tr.TLSClientConfig.RootCAs != nil {
		t.Errorf("without extra authorities the system's are used as they are: %v", err)
	}
}

// The command line's default transport and the daemon's read the same extra authorities once
// per process, and trust them.
func TestExtraCAsReadOnce(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "corp.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	c := Config{CAFiles: []string{ca}}
	first, err := c.RootCAs()
	if err != nil || first == nil {
		t.Fatalf("pool %v, err %v", first, err)
	}
	if again, err := c.RootCAs(); again != first || err != nil {
		t.Errorf("the authorities were read again (err %v)", err)
	}
	tr, err := c.Transport()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: tr}).Get(srv.URL)
	if err != nil {
		t.Fatalf("the extra authority is not trusted: %v", err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Fatal(err)
	}
}

// The browser is given every certificate of the files and folders named, each once, and the
// same broken files refuse it as they refuse the daemon's transport.
func TestBrowserCAs(t *testing.T) {
	a, b := selfSigned(t, "a"), selfSigned(t, "b")
	encode := func(ders ...[]byte) []byte {
		var out []byte
		for _, d := range ders {
			out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: d})...)
		}
		return out
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "bundle.pem")
	certs := filepath.Join(dir, "certs")
	for path, data := range map[string][]byte{
		file:                              encode(a),
		filepath.Join(certs, "b.pem"):     encode(b, a),
		filepath.Join(certs, "README"):    []byte("not a certificate"),
		filepath.Join(certs, "empty.pem"): nil,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Config{CAFiles: []string{file}, CADirs: []string{certs}}.BrowserCAs()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !bytes.Equal(got[0], a) || !bytes.Equal(got[1], b) {
		t.Errorf("got %d certificates, want a's then b's, once each", len(got))
	}
	if got, err := (Config{}).BrowserCAs(); got != nil || err != nil {
		t.Errorf("none named: %d, %v", len(got), err)
	}
	junk := filepath.Join(certs, "README")
	if _, err := (Config{CAFiles: []string{junk}}).BrowserCAs(); !errors.Is(err, ErrBadCA) {
		t.Errorf("a file without a certificate: %v", err)
	}
}

// selfSigned is a new self-signed authority's certificate (DER) named cn.
func selfSigned(t *testing.T, cn string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// The system's bundle is only checked to hold a certificate at start, reading as far as its
// first one: a certificate the first read cuts in two is found, and only the file's end says
// there is none.
func TestStartsWithCertificate(t *testing.T) {
	cert := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: selfSigned(t, "a")})
	key := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("not a certificate")})
	// pad is n bytes of comment lines, ending with a whole line.
	pad := func(n int) []byte {
		return append(bytes.Repeat([]byte("# a comment line of a bundle\n"), n/29+1)[:n-1], '\n')
	}
	dir := t.TempDir()
	for name, c := range map[string]struct {
		data []byte
		want bool
	}{
		"first":            {cert, true},
		"cut by the chunk": {append(pad(8<<10-len(cert)/2), cert...), true},
		"after a key":      {append(append(pad(50<<10), key...), cert...), true},
		"at the end":       {append(pad(300<<10), cert...), true},
		"only a key":       {append(key, pad(20<<10)...), false},
		"none":             {pad(100 << 10), false},
		"empty":            {nil, false},
	} {
		f := filepath.Join(dir, name+".pem")
		if err := os.WriteFile(f, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := startsWithCertificate(f); got != c.want || err != nil {
			t.Errorf("%s: %v, %v; want %v", name, got, err, c.want)
		}
	}
	for _, f := range []string{filepath.Join(dir, "absent.pem"), dir} {
		if _, err := startsWithCertificate(f); err == nil {
			t.Errorf("%s: no error", f)
		}
	}
}
