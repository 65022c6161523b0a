package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/cairnhq/cairn/server"
)

// serve runs the daemon until a signal.
func serve(ctx context.Context, args []string, stdio IO) int {
	fs := newFlags("serve", stdio)
	socket := fs.String("socket", "", "Unix socket path (default DATA_DIR/daemon.sock)")
	listen := fs.String("listen", "", "listen on 127.0.0.1:PORT instead of a socket")
	dir := fs.String("data-dir", "", "data directory")
	tokenFile := fs.String("token-file", "", "bearer token file (created 0600 when missing)")
	lifeline := fs.Bool("stdin-lifeline", false, "exit when stdin closes (for a spawning editor: the daemon ends with it)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *socket != "" && *listen != "" {
		fmt.Fprintln(stdio.Err, "cairn serve: --socket and --listen are exclusive")
		return exitUsage
	}
	d, err := server.Start(ctx, server.Config{DataDir: dataDir(*dir), Socket: *socket, Listen: *listen,
		TokenFile: *tokenFile, Version: Version, Logger: logger(stdio.Err)})
	if err != nil {
		fmt.Fprintf(stdio.Err, "cairn serve: %v\n", err)
		return exitFailure
	}
	if err := d.PrintHandshake(stdio.Out); err != nil {
		d.Stop()
		return exitFailure
	}
	if *lifeline {
		// The spawner keeps our stdin open; if it dies, even by SIGKILL, the pipe closes.
		lctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go func() {
			_, _ = io.Copy(io.Discard, stdio.In)
			cancel()
		}()
		ctx = lctx
	}
	<-ctx.Done()
	d.Stop()
	return exitOK
}
