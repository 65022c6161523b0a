package cli

import (
	"context"
	"fmt"

	"github.com/cairnhq/cairn/server"
)

// serve runs the daemon until a signal.
func serve(ctx context.Context, args []string, io IO) int {
	fs := newFlags("serve", io)
	socket := fs.String("socket", "", "Unix socket path (default DATA_DIR/daemon.sock)")
	listen := fs.String("listen", "", "listen on 127.0.0.1:PORT instead of a socket")
	dir := fs.String("data-dir", "", "data directory")
	tokenFile := fs.String("token-file", "", "bearer token file (created 0600 when missing)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if *socket != "" && *listen != "" {
		fmt.Fprintln(io.Err, "cairn serve: --socket and --listen are exclusive")
		return exitUsage
	}
	d, err := server.Start(ctx, server.Config{DataDir: dataDir(*dir), Socket: *socket, Listen: *listen,
		TokenFile: *tokenFile, Version: Version, Logger: logger(io.Err)})
	if err != nil {
		fmt.Fprintf(io.Err, "cairn serve: %v\n", err)
		return exitFailure
	}
	if err := d.PrintHandshake(io.Out); err != nil {
		d.Stop()
		return exitFailure
	}
	<-ctx.Done()
	d.Stop()
	return exitOK
}
