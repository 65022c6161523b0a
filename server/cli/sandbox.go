package cli

import (
	"fmt"
	"strings"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// sandboxLine is the first line of `cairn run` and `cairn resume` (docs/cli.md, "The first
// line"): how the task's commands run, in the sandbox or not, and why. flagOff says the run was
// given --no-sandbox, which for the run's own daemon became its sandboxDisabled setting.
func sandboxLine(st *cairnv1.SandboxStatus, flagOff bool) string {
	switch {
	case st == nil:
		return "sandbox: unknown: the daemon did not say how commands run (a cairn serve older than this cairn?)"
	case st.GetOff():
		by := st.GetOffBy()
		if flagOff || by == "" {
			by = "--no-sandbox"
		}
		return fmt.Sprintf("sandbox: off (%s): commands run without the kernel's protection", by)
	case !st.GetAvailable():
		return fmt.Sprintf("sandbox: unavailable here: %s; every command will ask (turn the sandbox off with --no-sandbox to auto-approve)",
			strings.TrimSpace(st.GetReason()))
	}
	network := "off"
	if st.GetNetwork() {
		network = "on"
	}
	return fmt.Sprintf("sandbox: on (%s); network %s for auto-approved commands", st.GetMechanism(), network)
}
