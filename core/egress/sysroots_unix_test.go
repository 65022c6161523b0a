//go:build aix || dragonfly || freebsd || linux || netbsd || openbsd || solaris

package egress

import (
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A CA file that is also this process's SSL_CERT_FILE is in the system's pool already: the
// transport leaves the pool to crypto/tls, which loads it at the first handshake and trusts
// the file's authority; a file of that name that holds no certificate is still refused. The
// handshake runs in a process of its own, whose system pool nothing has loaded yet, and which
// checks the file once.
func TestSystemCAFileNotReadTwice(t *testing.T) {
	if url := os.Getenv("CAIRN_EGRESS_TEST_URL"); url != "" {
		ca, dir := os.Getenv("SSL_CERT_FILE"), os.Getenv("SSL_CERT_DIR")
		c := Config{CAFiles: []string{ca}, CADirs: []string{dir}}
		if pool, err := c.RootCAs(); pool != nil || err != nil {
			t.Fatalf("pool %v, err %v; want the system's, loaded later", pool, err)
		}
		tr, err := c.Transport()
		if err != nil {
			t.Fatal(err)
		}
		resp, err := (&http.Client{Transport: tr}).Get(url)
		if err != nil {
			t.Fatalf("the authority of SSL_CERT_FILE is not trusted: %v", err)
		}
		if err := resp.Body.Close(); err != nil {
			t.Fatal(err)
		}
		// The file is checked once per process: the command line's transport and the
		// daemon's share the answer, so a second transport does not read it again.
		if err := os.WriteFile(ca, []byte("not a certificate"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Transport(); err != nil {
			t.Errorf("a second transport read the file again: %v", err)
		}
		return
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestSystemCAFileNotReadTwice$", "-test.count", "1")
	cmd.Env = append(os.Environ(), "CAIRN_EGRESS_TEST_URL="+srv.URL, "SSL_CERT_FILE="+ca, "SSL_CERT_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}

	junk := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junk, []byte("not a certificate"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_FILE", junk)
	if _, err := (Config{CAFiles: []string{junk}}).Transport(); !errors.Is(err, ErrBadCA) {
		t.Errorf("SSL_CERT_FILE without a certificate: %v", err)
	}
	t.Setenv("SSL_CERT_DIR", filepath.Join(dir, "absent"))
	if _, err := (Config{CADirs: []string{filepath.Join(dir, "absent")}}).Transport(); !errors.Is(err, ErrBadCA) {
		t.Errorf("SSL_CERT_DIR that is no folder: %v", err)
	}
}
