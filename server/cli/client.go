package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/server"
)

// bearer sends the daemon's token with every call. The socket is local and private, so no
// transport security is needed (RequireTransportSecurity is false).
type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

func (bearer) RequireTransportSecurity() bool { return false }

// client is a connection to a daemon.
type client struct {
	conn  *grpc.ClientConn
	tasks cairnv1.TaskServiceClient
	ui    cairnv1.UiServiceClient
	state cairnv1.StateServiceClient
	ws    cairnv1.WorkspaceServiceClient
	// bridge lets `cairn acp` give a session the editor's files and terminal.
	bridge cairnv1.HostBridgeServiceClient
}

// dial connects to address ("unix:///path", `pipe://\\.\pipe\NAME` or "127.0.0.1:PORT") with the token in tokenFile.
func dial(address, tokenFile string) (*client, error) {
	tok, err := os.ReadFile(tokenFile)
	if err != nil {
		return nil, fmt.Errorf("token: %w", err)
	}
	target := address
	var opts []grpc.DialOption
	if pipe, ok := server.PipeAddress(address); ok {
		// A Windows daemon's named pipe: gRPC has no resolver for it, so the dialer opens it.
		target = "passthrough:///pipe"
		opts = append(opts, grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return server.DialPipe(ctx, pipe)
		}))
	} else if !strings.HasPrefix(target, "unix://") {
		target = "passthrough:///" + target
	}
	opts = append(opts, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(bearer(strings.TrimSpace(string(tok)))),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(server.MaxMessageBytes), grpc.MaxCallSendMsgSize(server.MaxMessageBytes)))
	conn, err := grpc.NewClient(target, opts...)
	if err != nil {
		return nil, err
	}
	return &client{conn: conn, tasks: cairnv1.NewTaskServiceClient(conn), ui: cairnv1.NewUiServiceClient(conn),
		state: cairnv1.NewStateServiceClient(conn), ws: cairnv1.NewWorkspaceServiceClient(conn),
		bridge: cairnv1.NewHostBridgeServiceClient(conn)}, nil
}

func (c *client) Close() error { return c.conn.Close() }

// attach connects to the daemon already serving dataDir, found through its handshake file, and
// proves it with an authenticated call (the pid in the file may have been reused).
func attach(ctx context.Context, dataDir string) (*client, error) {
	hs, err := server.FindDaemon(dataDir)
	if err != nil {
		return nil, err
	}
	c, err := dial(hs.Address, hs.TokenFile)
	if err != nil {
		return nil, err
	}
	if _, err := c.state.GetState(ctx, &cairnv1.GetStateRequest{}); err != nil {
		return nil, errors.Join(fmt.Errorf("the daemon in %s does not answer: %s: %w", server.HandshakePath(dataDir), statusText(err), server.ErrNoDaemon), c.Close())
	}
	return c, nil
}

// statusText shows a gRPC error as its message, without the transport's prefix.
func statusText(err error) string {
	if daemonGone(err) {
		return goneText
	}
	if s, ok := status.FromError(err); ok {
		return s.Message()
	}
	return err.Error()
}

// goneText is what the CLI says, in one sentence, of a daemon that went away under it (its
// connection broke or was refused) instead of gRPC's transport text (docs/cli.md).
const goneText = "the daemon went away (it exited or was killed; its log says why)"

// daemonGone reports whether err means the daemon is no longer there to answer.
func daemonGone(err error) bool {
	return status.Code(err) == codes.Unavailable
}
