//go:build unix && !darwin

package browser

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// ownCAServer serves a page over TLS with a certificate signed by an authority made here, and
// returns the server and the authority's certificate (DER).
func ownCAServer(t *testing.T) (*httptest.Server, []byte) {
	t.Helper()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	caKey, leafKey := key(), key()
	now := time.Now()
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Cairn test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	leafTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leafTmpl, ca, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = w.Write([]byte(`<p>signed by the company's own authority</p>`))
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, caDER
}

// needCertutil skips where NSS's certutil is missing, except on CI, which installs it.
func needCertutil(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("certutil"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("certutil missing on CI (.ci/run installs libnss3-tools)")
		}
		t.Skip("no certutil on this machine (libnss3-tools)")
	}
}

// TestLaunchTrustsExtraCAs: a page whose certificate an extra authority signed loads once the
// browser is given that authority, is refused without it, and is refused with the reason
// where the authority cannot be given (no certutil). The browser's home folder goes with it.
func TestLaunchTrustsExtraCAs(t *testing.T) {
	needBrowser(t)
	needCertutil(t)
	tmp := isolate(t)
	srv, caDER := ownCAServer(t)
	ctx := context.Background()
	launch := func(cas func() ([][]byte, error)) error {
		s := NewSession(Options{ExtraCAs: cas})
		defer func() {
			if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		}()
		shot, err := s.Launch(ctx, srv.URL)
		if err == nil && !strings.HasPrefix(shot.URL, srv.URL) {
			t.Errorf("the page is at %q, want %s", shot.URL, srv.URL)
		}
		return err
	}

	if err := launch(nil); !errors.Is(err, ErrNavigate) || !strings.Contains(err.Error(), "ERR_CERT_AUTHORITY_INVALID") {
		t.Fatalf("without the authority: %v, want the page refused for its certificate", err)
	}
	if err := launch(func() ([][]byte, error) { return [][]byte{caDER}, nil }); err != nil {
		t.Fatalf("with the authority: %v", err)
	}
	if left, _ := filepath.Glob(tmp + "/cairn-browser-home-*"); len(left) != 0 {
		t.Errorf("the browser's home folders are left: %v", left)
	}

	old := lookCertutil
	lookCertutil = func() (string, error) { return "", exec.ErrNotFound }
	defer func() { lookCertutil = old }()
	err := launch(func() ([][]byte, error) { return [][]byte{caDER}, nil })
	if !errors.Is(err, ErrNavigate) || !errors.Is(err, errUntrusted) || !strings.Contains(err.Error(), "libnss3-tools") {
		t.Fatalf("without certutil: %v, want the page refused, saying certutil is missing", err)
	}
}
