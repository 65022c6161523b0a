package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/cairnhq/cairn/core/agent"
	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/helper"
	"github.com/cairnhq/cairn/core/sandbox"
)

// doctor prints what a user needs to know about this machine before trusting Cairn with it
// (docs/cli.md, "cairn doctor"): the version, the platform, whether the command sandbox can be
// set up and, when not, why and what follows (README "Security": every command asks), the
// settings that govern it, and the programs Cairn uses, its own helper among them. It exits 0 whenever it printed, an
// unavailable sandbox included: that is a fact it reports, not a failure of the command.
func doctor(_ context.Context, args []string, stdio IO) int {
	fs := newFlags("doctor", stdio)
	dataFlag := fs.String("data-dir", "", "data directory (whose settings.json the editor's daemon uses)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		stdio.errf("cairn doctor: takes no arguments\n")
		return exitUsage
	}
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }

	line("cairn %s (%s, %s/%s)", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if k := kernel(); k != "" {
		line("kernel: %s", k)
	}

	st := sandbox.Probe()
	if st.Available {
		line("sandbox: available: %s", st.Mechanism)
		line("  commands auto-approved as read-only run in its read-only tier, the others in its workspace tier")
	} else {
		line("sandbox: unavailable: %s", st.Reason)
		line("  every command asks before it runs, even one an auto-approval would run;")
		line("  turning the sandbox off (the sandboxDisabled setting, or cairn run --no-sandbox) auto-approves commands without it")
	}
	for _, f := range platformFacts() {
		line("%s", f)
	}

	home, _ := os.UserHomeDir() // "" : no home folder, the credential stores are then not named
	settingsLine(line, "cairn run", configPath(), st)
	settingsLine(line, "the editor's daemon", filepath.Join(dataDir(*dataFlag), "settings.json"), st)
	stores := make([]string, len(sandbox.CredentialStores))
	for i, c := range sandbox.CredentialStores {
		stores[i] = "~/" + c
	}
	line("always read as absent in the sandbox: %s, and Cairn's data folder", strings.Join(stores, ", "))
	if home == "" {
		line("  (no home folder here: the credential stores under it are not masked)")
	}

	if p, err := exec.LookPath("git"); err != nil {
		line("git: not found (checkpoints and worktree tasks need it)")
	} else {
		line("git: %s", p)
	}
	if p, err := helper.Path(); err != nil {
		line("helper: %v (reading a PDF, converting a web page and the OpenTelemetry export need it)", err)
	} else {
		line("helper: %s", p)
	}
	s, err := config.Load(configPath())
	if err != nil {
		s = config.Default()
	}
	if p, err := agent.BrowserFound(s, nil); err != nil {
		line("browser: none found (browser_action and pages built by scripts need Chromium, Chrome or Edge, or browserRemoteUrl)")
	} else {
		line("browser: %s", p)
	}
	return stdio.emit(b.String())
}

// settingsLine prints the sandbox settings of one settings file and what they mean with st.
func settingsLine(line func(string, ...any), who, path string, st sandbox.Status) {
	s, err := config.Load(path)
	if err != nil {
		line("settings of %s: %v", who, err)
		return
	}
	where := path
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		where += ", not there: the defaults"
	}
	masked := "none"
	if len(s.SandboxMaskedPaths) > 0 {
		masked = strings.Join(s.SandboxMaskedPaths, ", ")
	}
	line("settings of %s (%s): sandboxDisabled %v, sandboxNetwork %v, sandboxMaskedPaths %s", who, where, s.SandboxOff, s.SandboxNetwork, masked)
	switch {
	case s.SandboxOff:
		line("  there the sandbox is off: commands run without the kernel's protection")
	case !st.Available:
		line("  there every command asks (no sandbox here)")
	case s.SandboxNetwork:
		line("  there commands run in the sandbox, auto-approved ones with the network")
	default:
		line("  there commands run in the sandbox, the network off for auto-approved ones")
	}
}
