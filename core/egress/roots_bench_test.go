package egress

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"testing"
)

// BenchmarkSystemRootsFirstUse is what the first TLS handshake pays for loading the system's
// authorities, work no longer done before the daemon's handshake when the extra CA files are
// the ones crypto/x509 reads itself (docs/performance.md, "P5 — the daemon at rest"): parsing
// the bundle SSL_CERT_FILE names (else Debian's) into a fresh pool. crypto/x509 does it once per
// process; certs is how many certificates the bundle holds.
func BenchmarkSystemRootsFirstUse(b *testing.B) {
	file := os.Getenv("SSL_CERT_FILE")
	if file == "" {
		file = "/etc/ssl/certs/ca-certificates.crt"
	}
	data, err := os.ReadFile(file)
	if err != nil {
		b.Skipf("no certificate bundle: %v", err)
	}
	for b.Loop() {
		if !x509.NewCertPool().AppendCertsFromPEM(data) {
			b.Fatalf("%s holds no certificate", file)
		}
	}
	certs := 0
	for rest := data; ; {
		var blk *pem.Block
		if blk, rest = pem.Decode(rest); blk == nil {
			break
		}
		certs++
	}
	b.ReportMetric(float64(certs), "certs")
}
