// Package nettest makes the network of an organisation inside a test: a certificate
// authority of its own, servers with names only it knows, and a recording CONNECT proxy that
// is the only way to them (README "Networks of organisations").
package nettest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// CA is a certificate authority made for one test.
type CA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	// File is the CA's certificate as a PEM file (for SSL_CERT_FILE).
	File string
}

// NewCA makes a CA and writes its certificate to a file in a temp folder.
func NewCA(t testing.TB) *CA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Cairn test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return &CA{cert: cert, key: key, File: file}
}

// Serve serves h over TLS with a certificate the CA signed for host, on a loopback port, and
// returns the port.
func (ca *CA) Serve(t testing.TB, host string, h http.Handler) string {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = ca.ServerTLS(t, host)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return port
}

// ServerTLS is a server's TLS configuration with a certificate the CA signed for host.
func (ca *CA) ServerTLS(t testing.TB, host string) *tls.Config {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
}

// Proxy is a CONNECT proxy that records every target it is asked for and reaches the names
// it was given (any other target is refused).
type Proxy struct {
	// URL is the proxy's address (for HTTPS_PROXY).
	URL string

	// mu guards targets and routes.
	mu      sync.Mutex
	targets []string
	routes  map[string]string
}

// NewProxy starts a proxy that reaches host:port at 127.0.0.1:port for each host of names.
func NewProxy(t testing.TB, names ...string) *Proxy {
	t.Helper()
	p := &Proxy{routes: map[string]string{}}
	for _, n := range names {
		p.routes[n] = "127.0.0.1"
	}
	srv := httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// Targets are the host:port pairs asked for, in order.
func (p *Proxy) Targets() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.targets...)
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.targets = append(p.targets, r.Host)
	host, port, err := net.SplitHostPort(r.Host)
	ip, known := p.routes[host]
	p.mu.Unlock()
	if r.Method != http.MethodConnect || err != nil || !known {
		http.Error(w, "this proxy reaches only the test's own servers", http.StatusForbidden)
		return
	}
	up, err := net.Dial("tcp", net.JoinHostPort(ip, port))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		_ = up.Close() // nothing was sent on it; the error below is the answer
		http.Error(w, "no hijacking", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
	down, buf, err := hj.Hijack()
	if err != nil {
		_ = up.Close() // the client is gone: nothing to tell anyone
		return
	}
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(up, buf); done <- struct{}{} }()  // a tunnel: its errors are the peers' to see
	go func() { _, _ = io.Copy(down, up); done <- struct{}{} }() // a tunnel: its errors are the peers' to see
	<-done
	_ = up.Close()   // the tunnel is over either way
	_ = down.Close() // the tunnel is over either way
}
