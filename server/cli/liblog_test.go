package cli

import (
	"bytes"
	"log"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"

	"google.golang.org/grpc/grpclog"
)

// TestMain runs, when asked, cairn itself, or a process that routes library logs as Main does for the
// command in CAIRN_CLI_LIBLOG and then logs the ways libraries do.
func TestMain(m *testing.M) {
	// The test binary is also the cairn binary for tests that need a process of their own
	// (acp_sdk_test.go): its arguments are the command line.
	if os.Getenv("CAIRN_CLI_MAIN") != "" {
		os.Exit(Main(os.Args[1:]))
	}
	if cmd := os.Getenv("CAIRN_CLI_LIBLOG"); cmd != "" {
		routeLibraryLogs(libraryLogger([]string{cmd}, os.Stderr))
		log.Print("from the log package")
		slog.Info("from slog's default")
		grpclog.Errorf("from gRPC")
		grpclog.Infof("gRPC chatter")
		return
	}
	os.Exit(m.Run())
}

// What libraries log through the log package, slog's default or gRPC's logger never reaches
// stdout; it is the daemon log's: stderr for serve, nowhere for run without CAIRN_DEBUG.
func TestLibraryLogsGoToTheDaemonLog(t *testing.T) {
	for _, tc := range []struct {
		cmd, debug string
		want       []string
	}{
		{"run", "", nil},
		{"serve", "", []string{`level=INFO msg="from the log package"`, `level=INFO msg="from slog's default"`,
			`level=ERROR msg="from gRPC" from=grpc`}},
		{"run", "1", []string{`level=INFO msg="from the log package"`, `level=INFO msg="from slog's default"`,
			`level=ERROR msg="from gRPC" from=grpc`, `level=DEBUG msg="gRPC chatter" from=grpc`}},
	} {
		t.Run(tc.cmd+tc.debug, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "CAIRN_CLI_LIBLOG="+tc.cmd, "CAIRN_DEBUG="+tc.debug)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v; stderr: %s", err, stderr.String())
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout: %q", stdout.String())
			}
			var lines []string
			for l := range strings.Lines(stderr.String()) {
				_, rest, _ := strings.Cut(strings.TrimSpace(l), " ") // time=…
				lines = append(lines, rest)
			}
			if strings.Join(lines, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("stderr lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
