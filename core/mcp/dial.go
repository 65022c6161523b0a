package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/internal/tailbuf"
	"github.com/cairnhq/cairn/core/sandbox"
)

// How long a stdio server gets to exit after its stdin closes, then after SIGTERM.
const (
	exitGrace = 2 * time.Second
	termGrace = 3 * time.Second
)

// dial opens the transport of one server and starts its client. ctx is the conn's lifetime:
// long-lived streams (SSE, the Streamable HTTP listener) live as long as it. box, when set,
// is what a stdio server's sandbox starts from. log is where the transport's own messages
// go: mcp-go otherwise logs to slog's process default, which in `cairn run` is the user's
// terminal (README, "Using it from the command line").
func dial(ctx context.Context, cfg ServerConfig, box *sandbox.Base, stderr *tailbuf.Buffer, hc *http.Client, log *slog.Logger) (*session, error) {
	s := newSession()
	switch cfg.transport() {
	case TypeStdio:
		return s, dialStdio(ctx, s, cfg, box, stderr, log)
	case TypeSSE:
		opts := []transport.ClientOption{client.WithHeaders(expandMap(cfg.Headers)), transport.WithSSELogger(log)}
		if hc != nil {
			opts = append(opts, client.WithHTTPClient(hc))
		}
		cl, err := client.NewSSEMCPClient(cfg.URL, opts...)
		if err != nil {
			return nil, fmt.Errorf("sse client: %w", err)
		}
		cl.OnConnectionLost(func(err error) { s.markLost(fmt.Errorf("the SSE stream ended: %w", err)) })
		s.client, s.closeFn = cl, cl.Close
	case TypeStreamableHTTP:
		opts := []transport.StreamableHTTPCOption{transport.WithHTTPHeaders(expandMap(cfg.Headers)),
			transport.WithContinuousListening(), transport.WithHTTPLogger(log)}
		if hc != nil {
			opts = append(opts, transport.WithHTTPBasicClient(hc))
		}
		cl, err := client.NewStreamableHttpClient(cfg.URL, opts...)
		if err != nil {
			return nil, fmt.Errorf("streamable HTTP client: %w", err)
		}
		s.client, s.closeFn = cl, cl.Close
	default:
		return nil, fmt.Errorf("%w: unknown type %q", ErrBadSettings, cfg.Type)
	}
	if err := s.client.Start(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("connecting to %s: %w", cfg.URL, err), s.close())
	}
	return s, nil
}

// dialStdio starts the server's process itself (rather than through mcp-go's stdio
// transport) so that the hub sees it exit, keeps its stderr, sets its folder, and stops its
// whole process group. With box it runs in the sandbox (confine).
func dialStdio(ctx context.Context, s *session, cfg ServerConfig, box *sandbox.Base, stderr *tailbuf.Buffer, log *slog.Logger) error {
	cmd := exec.Command(cfg.Command, cfg.Args...)
	cmd.Dir = cfg.Cwd
	// The providers' key variables of the daemon's environment are not the server's to read;
	// its own settings may still hand it any of them (README, Security).
	cmd.Env = append(config.Secrets{Names: config.DefaultSecretEnv}.Scrub(os.Environ()), envList(expandMap(cfg.Env))...)
	cmd.Stderr = stderr
	setProcessGroup(cmd)
	if cmd.Err != nil {
		// Not found: said as it always was, before the sandbox's launcher would say it.
		return fmt.Errorf("starting %s: %w", cfg.Command, cmd.Err)
	}
	temp := ""
	if box != nil {
		var err error
		if temp, err = confine(cmd, cfg, *box); err != nil {
			return fmt.Errorf("starting %s in the sandbox: %w", cfg.Command, err)
		}
	}
	removeTemp := func() {
		if temp == "" {
			return
		}
		// Only the server's scratch files are lost: they are removed after every run.
		if err := os.RemoveAll(temp); err != nil {
			log.Warn("mcp: removing the server's temp folder", "dir", temp, "err", err)
		}
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		removeTemp()
		return fmt.Errorf("stdin pipe: %w", err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		removeTemp()
		return fmt.Errorf("stdout pipe: %w", err)
	}
	stderr.Reset()
	if err := cmd.Start(); err != nil {
		removeTemp()
		return fmt.Errorf("starting %s: %w", cfg.Command, err)
	}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		defer removeTemp()
		err := cmd.Wait()
		if err == nil {
			s.markLost(errors.New("the server exited"))
			return
		}
		s.markLost(fmt.Errorf("the server exited: %w", err))
	}()
	tr := transport.NewIO(stdout, stdin, nil)
	// NewIO takes no options and starts with slog's default logger; the option is a plain
	// setter, applied before the transport starts.
	transport.WithCommandLogger(log)(tr)
	cl := client.NewClient(tr)
	s.client = cl
	s.closeFn = func() error {
		cerr := cl.Close() // closes stdin: a well-behaved server exits
		if waitFor(exited, exitGrace) {
			return cerr
		}
		signalGroup(cmd, false)
		if waitFor(exited, termGrace) {
			return cerr
		}
		signalGroup(cmd, true)
		<-exited
		return cerr
	}
	if err := cl.Start(ctx); err != nil {
		return errors.Join(fmt.Errorf("starting the client: %w", err), s.close())
	}
	return nil
}

func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

func envList(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
