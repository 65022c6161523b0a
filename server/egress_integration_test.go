package server_test

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/egress"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/server/internal/nettest"
	"github.com/cairnhq/cairn/server/servertest"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// orgNetwork runs a whole task (a read, then the completion) against a model endpoint that
// only a recording proxy can reach, under a name no resolver knows, with a certificate of a CA
// the system does not trust: the task finishes only if its model requests went through the
// proxy and trusted the CA given as SSL_CERT_FILE would give it (README "Networks of
// organisations").
func orgNetwork(t *testing.T) (*servertest.Env, *nettest.Proxy, string) {
	t.Helper()
	const host = "llm.corp.test"
	ca := nettest.NewCA(t)
	llm := llmtest.NewHandler(llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<read_file>\n<path>notes.txt</path>\n</read_file>"},
		{Text: complete},
	}})
	t.Cleanup(llm.Close)
	port := ca.Serve(t, host, llm)
	proxy := nettest.NewProxy(t, host)
	endpoint := net.JoinHostPort(host, port)
	e := servertest.StartWith(t, llm, servertest.Options{
		Settings: func(s *config.Settings) {
			s.API.BaseURL = "https://" + endpoint + "/v1"
			s.BrowserEnabled = false
		},
		// What the daemon reads from HTTPS_PROXY and SSL_CERT_FILE (egress.FromEnv).
		Egress: &egress.Config{HTTPSProxy: proxy.URL, HTTPProxy: proxy.URL, CAFiles: []string{ca.File}},
	})
	if err := os.WriteFile(filepath.Join(e.Workspace, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := e.NewTask("read the notes", "", act)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if got := len(llm.Requests()); got != 2 {
		t.Fatalf("the model got %d requests, want 2", got)
	}
	if err := llm.Err(); err != nil {
		t.Fatal(err)
	}
	return e, proxy, endpoint
}

// TestModelThroughProxyWithOwnCA: a model request carried by the organisation's proxy to an
// endpoint whose certificate only the organisation's CA vouches for.
func TestModelThroughProxyWithOwnCA(t *testing.T) {
	_, proxy, endpoint := orgNetwork(t)
	if targets := proxy.Targets(); len(targets) == 0 || targets[0] != endpoint {
		t.Fatalf("the proxy saw %v, want CONNECTs to %s", targets, endpoint)
	}
}

// TestTaskConnectsToNothingElse: a whole task connects to nothing but the configured model
// endpoint, and telemetry is off unless configured. What it proves: every connection made
// through the daemon's transport goes to the proxy (it lists only the model endpoint), and
// when the task ends the test process holds no TCP connection to anything but loopback (on
// Linux, from its own sockets in /proc). What it cannot prove: a connection opened and closed
// by code that bypasses the transport between those two looks.
func TestTaskConnectsToNothingElse(t *testing.T) {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"} {
		t.Setenv(k, "")
	}
	_, proxy, endpoint := orgNetwork(t)
	for _, target := range proxy.Targets() {
		if target != endpoint {
			t.Errorf("the daemon connected to %s; only %s is configured (all: %v)", target, endpoint, proxy.Targets())
		}
	}
	if runtime.GOOS != "linux" {
		return
	}
	for _, remote := range openTCPRemotes(t) {
		if ip := net.ParseIP(remote); ip == nil || !ip.IsLoopback() {
			t.Errorf("an open connection to %s", remote)
		}
	}
}

// openTCPRemotes are the remote addresses of the TCP sockets this process holds open: the
// socket inodes of /proc/self/fd looked up in /proc/self/net/tcp and tcp6.
func openTCPRemotes(t *testing.T) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var inodes []string
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(link, "socket:[") {
			inodes = append(inodes, strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]"))
		}
	}
	var out []string
	for _, table := range []string{"/proc/self/net/tcp", "/proc/self/net/tcp6"} {
		data, err := os.ReadFile(table)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			// f[3] is the state: 0A is a listening socket, which has no remote.
			if len(f) < 10 || f[3] == "0A" || !slices.Contains(inodes, f[9]) {
				continue
			}
			out = append(out, procAddr(f[2]))
		}
	}
	return out
}

// procAddr reads /proc/net/tcp's hex address ("0100007F:1F90") as an IP.
func procAddr(hexAddr string) string {
	h, _, _ := strings.Cut(hexAddr, ":")
	b := make([]byte, len(h)/2)
	for i := range b {
		var v byte
		for _, c := range h[2*i : 2*i+2] {
			v <<= 4
			switch {
			case c >= '0' && c <= '9':
				v |= byte(c - '0')
			case c >= 'A' && c <= 'F':
				v |= byte(c-'A') + 10
			}
		}
		b[i] = v
	}
	// The kernel writes each 32-bit word in host order (little-endian here).
	for i := 0; i+4 <= len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	return net.IP(b).String()
}
