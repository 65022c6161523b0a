package cli

import (
	"context"
	"strings"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// enableHooks is `cairn run --hooks`: hooks run in the workspace and from the global folder,
// and every hook file is trusted with the content it has now, for this run (the run's own
// daemon keeps it in memory; with --connect the shared daemon records it). The daemon checks
// each file's content against that before every run, so a hook written during the run does
// not run.
func enableHooks(ctx context.Context, c *client, root string, stdio IO) error {
	for _, global := range []bool{false, true} {
		if _, err := c.ws.EnableHooks(ctx, &cairnv1.EnableHooksRequest{WorkspaceRoot: root, Global: global, Enabled: true}); err != nil {
			return err
		}
	}
	list, err := c.ws.ListHooks(ctx, &cairnv1.ListHooksRequest{WorkspaceRoot: root})
	if err != nil {
		return err
	}
	var names []string
	for _, h := range list.GetHooks() {
		if _, err := c.ws.TrustHook(ctx, &cairnv1.TrustHookRequest{WorkspaceRoot: root, Path: h.GetPath()}); err != nil {
			return err
		}
		names = append(names, h.GetName())
	}
	if len(names) == 0 {
		stdio.errf("hooks: none found in .clinerules/hooks, .cairnrules/hooks or %s\n", list.GetGlobalDir())
		return nil
	}
	stdio.errf("hooks: trusted as they are now: %s\n", strings.Join(names, ", "))
	return nil
}
