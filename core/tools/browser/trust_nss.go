//go:build unix && !darwin

package browser

import (
	"bytes"
	"context"
	"encoding/pem"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// trustHome makes a home folder for Chromium whose NSS database (.pki/nssdb, where Chromium
// on these systems looks for the authorities a user added) trusts certs as issuers of
// websites' certificates, and returns it; the caller removes it. It needs NSS's certutil
// (Debian and Ubuntu: libnss3-tools; Fedora: nss-tools), which Chromium has no switch in
// place of. ctx bounds the certutil runs.
func trustHome(ctx context.Context, certs [][]byte) (home string, err error) {
	certutil, err := lookCertutil()
	if err != nil {
		return "", fmt.Errorf("%w: certutil, which writes Chromium's certificate database, is not installed (Debian and Ubuntu: libnss3-tools; Fedora: nss-tools)", errUntrusted)
	}
	home, err = os.MkdirTemp("", "cairn-browser-home-")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			// Nothing of the user's is in it: a database and copies of certificates.
			_ = os.RemoveAll(home)
			home = ""
		}
	}()
	db := filepath.Join(home, ".pki", "nssdb")
	if err := os.MkdirAll(db, 0o700); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	run := func(args ...string) error {
		out, err := exec.CommandContext(ctx, certutil, append(args, "-d", "sql:"+db)...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%w: certutil %s: %w: %s", errUntrusted, args[0], err, bytes.TrimSpace(out))
		}
		return nil
	}
	if err := run("-N", "--empty-password"); err != nil {
		return "", err
	}
	for i, der := range certs {
		file := filepath.Join(home, "ca-"+strconv.Itoa(i)+".pem")
		if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
			return "", err
		}
		// "C,,": a trusted issuer of servers' certificates, nothing else (not of mail, not of code).
		if err := run("-A", "-n", "cairn extra CA "+strconv.Itoa(i+1), "-t", "C,,", "-a", "-i", file); err != nil {
			return "", err
		}
	}
	return home, nil
}

// lookCertutil finds certutil (tests replace it).
var lookCertutil = func() (string, error) { return exec.LookPath("certutil") }
