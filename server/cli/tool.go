package cli

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/rpc"
)

// tool parses stdin as a streamed model message and runs its first tool call in DIR with the
// direct host, printing the result exactly as the model would receive it. With --connect the
// call runs in the daemon already serving the data dir, whose search index is warm.
func tool(ctx context.Context, args []string, stdio IO) int {
	fs := newFlags("tool", stdio)
	dirs := dirFlags(fs, false, "workspace directory")
	yes := fs.Bool("yes", false, "approve everything (edits are saved)")
	connect := fs.Bool("connect", false, "run the call in the daemon already running on the data dir")
	dataFlag := fs.String("data-dir", "", "data directory (with --connect)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	in, err := io.ReadAll(stdio.In)
	if err != nil {
		stdio.errf("cairn tool: %v\n", err)
		return exitFailure
	}
	root, err := filepath.Abs(*dirs.one())
	if err != nil {
		stdio.errf("cairn tool: %v\n", err)
		return exitUsage
	}
	var out rpc.ToolOutcome
	if *connect {
		c, err := attach(ctx, dataDir(*dataFlag))
		if err != nil {
			stdio.errf("cairn tool: --connect: %v\n", err)
			return exitFailure
		}
		defer closeClient(stdio, c)
		resp, err := c.ws.RunTool(ctx, &cairnv1.RunToolRequest{WorkspaceRoot: root, Message: string(in), Yes: *yes})
		if status.Code(err) == codes.InvalidArgument {
			stdio.errf("cairn tool: %s\n", usageDetail(status.Convert(err).Message()))
			return exitUsage
		}
		if err != nil {
			stdio.errf("cairn tool: %v\n", err)
			return exitFailure
		}
		out = rpc.ToolOutcome{Result: resp.GetResult(), Failed: resp.GetFailed(), Notes: resp.GetNotes()}
	} else {
		out, err = rpc.RunToolCall(ctx, root, string(in), *yes, nil)
		if errors.Is(err, rpc.ErrToolUsage) {
			stdio.errf("cairn tool: %s\n", usageDetail(err.Error()))
			return exitUsage
		}
		if err != nil {
			stdio.errf("cairn tool: %v\n", err)
			return exitFailure
		}
	}
	for _, n := range out.Notes {
		stdio.errf("%s\n", n)
	}
	if code := stdio.emit(out.Result + "\n"); code != exitOK {
		return code
	}
	if out.Failed {
		return exitFailure
	}
	return exitOK
}

// usageDetail drops the generic part of a usage error, keeping what went wrong.
func usageDetail(text string) string {
	return strings.TrimPrefix(text, rpc.ErrToolUsage.Error()+": ")
}
