package hostbridge

import (
	"fmt"
	"os"
	"strings"

	hostv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/host/v1"

	"github.com/cairnhq/cairn/core/sandbox"
)

// terminalShell is the shell the sandbox launcher runs a command line with in a terminal the
// daemon does not start itself: bash where there is one, as the editor's terminal mostly is,
// else the POSIX shell.
func terminalShell() string {
	if _, err := os.Stat("/bin/bash"); err == nil {
		return "/bin/bash"
	}
	return "/bin/sh"
}

// confine makes rc run its command in the sandbox under p (docs/sandbox.md): the terminal runs
// Cairn's launcher line, which starts the command with the shell under p and exits with its
// exit code, so shell integration still reads the command's output and exit code; the host
// shows display_command, the user's command. The launcher reads p from a file it writes in
// p.Temp, made here when missing.
func confine(rc *hostv1.RunCommandRequest, p sandbox.Policy) error {
	if p.Temp != "" {
		if err := os.MkdirAll(p.Temp, 0o700); err != nil {
			return fmt.Errorf("hostbridge: the sandbox's temp folder: %w", err)
		}
	}
	argv, err := sandbox.Argv(p, []string{terminalShell(), "-c", rc.GetCommand()})
	if err != nil {
		return fmt.Errorf("hostbridge: %w", err)
	}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = sandbox.Quote(a)
	}
	rc.DisplayCommand, rc.Command, rc.Argv = rc.GetCommand(), strings.Join(quoted, " "), argv
	return nil
}
