package llmtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// ServeFake is fakellm: it serves script on addr until ctx ends, calling ready with the base
// URL (ending in /v1) once the port is open. Requests past the end of any script, including
// one replaced through POST /_script, get EndTurn unless the script sets OnEnd, so demos and
// E2E runs finish instead of failing.
func ServeFake(ctx context.Context, addr string, script Script, ready func(baseURL string)) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("llmtest: listen: %w", err)
	}
	s := NewHandler(script)
	end := EndTurn()
	s.defaultEnd = &end
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	ready("http://" + ln.Addr().String() + "/v1")
	select {
	case err := <-errc:
		s.Close()
		return fmt.Errorf("llmtest: serve: %w", err)
	case <-ctx.Done():
	}
	s.Close() // end stalled responses first, or Shutdown would wait for them
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err = hs.Shutdown(shutdownCtx)
	if errors.Is(err, context.DeadlineExceeded) {
		// net/http waits for a connection that was opened but never used as for an active one
		// (a client's spare dial): after the grace period, close whatever is left.
		err = hs.Close()
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("llmtest: shutdown: %w", err)
	}
	return nil
}
