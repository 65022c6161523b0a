package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/policy"
	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
	"github.com/cairnhq/cairn/server"
)

// policySources finds this machine's policy files; tests point it elsewhere.
var policySources = server.DefaultPolicySources

// why prints what Cairn would do with a command line or a file tool's path in the workspace,
// and every rule and check that led to it (docs/cli.md, "cairn why"). It exits 0 whenever it
// printed a decision, whatever the decision; a usage error or a policy file that does not load
// is the only failure. With --task it adds the allow rules a saved task's session was given
// (its "always" answers) as the policy's session layer.
func why(_ context.Context, args []string, stdio IO) int {
	fs := newFlags("why", stdio)
	dirs := dirFlags(fs, false, "workspace directory")
	tool := fs.String("tool", "", "a file tool (read_file, write_to_file, replace_in_file, list_files, …): the argument is its path")
	editor := fs.String("editor-settings", "", "read the settings of the editor's daemon on this data dir instead of cairn run's config file (\"default\": the usual data dir)")
	taskID := fs.String("task", "", "a saved task's id: add the allow rules its session was given (its \"always\" answers); -C defaults to its workspace")
	dataFlag := fs.String("data-dir", "", "data directory holding --task's task")
	sf := &settingsFlags{}
	sf.register(fs)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 1 || strings.TrimSpace(fs.Arg(0)) == "" {
		stdio.errf("cairn why: one command line, or with --tool one path, is required, e.g. cairn why \"git push --force\"\n")
		return exitUsage
	}
	var meta *store.Meta
	if *taskID != "" {
		var err error
		if meta, err = whyTask(*dataFlag, *taskID); err != nil {
			stdio.errf("cairn why: %v\n", err)
			return exitFailure
		}
		if len(dirs.dirs) == 0 && len(meta.Workspace) > 0 {
			dirs.dirs = meta.Workspace[:1]
		}
	}
	root, err := filepath.Abs(*dirs.one())
	if err != nil {
		stdio.errf("cairn why: %v\n", err)
		return exitUsage
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	ws, err := workspace.New(root)
	if err != nil {
		stdio.errf("cairn why: %v\n", err)
		return exitUsage
	}
	s, err := whySettings(sf, *editor)
	if err != nil {
		stdio.errf("cairn why: %v\n", err)
		return exitUsage
	}
	src := policySources()
	src.Roots = []string{root}
	pol, err := policy.Load(src)
	if err != nil {
		stdio.errf("cairn why: %v\n", err)
		return exitFailure
	}
	if meta != nil {
		pol = pol.WithSession(meta.ID, []string{root}, meta.SessionRules)
	}
	var lines []string
	s, refused := pol.Clamp(s)
	for _, r := range refused {
		lines = append(lines, "note: "+r.Error())
	}
	req, err := whyRequest(ws, s, *tool, fs.Arg(0))
	if err != nil {
		stdio.errf("cairn why: %v\n", err)
		return exitUsage
	}
	res := pol.Decide(policy.Input{Settings: s.AutoApprove, Approval: req})
	lines = append(res.Lines(), lines...)
	if res.Locked && res.Verdict == policy.Ask {
		lines = append(lines, "a managed rule decided: no \"always\" answer is offered")
	}
	return stdio.emit(strings.Join(lines, "\n") + "\n")
}

// whyTask is the header of the saved task id in the data dir, read without taking its lock:
// the task may be open in a daemon.
func whyTask(dataFlag, id string) (*store.Meta, error) {
	st, err := store.Open(dataDir(dataFlag))
	if err != nil {
		return nil, err
	}
	t, err := st.Read(id)
	if err != nil {
		return nil, fmt.Errorf("--task %s: %w", id, err)
	}
	return &t.Meta, nil
}

// whySettings are the settings cairn run would use (the config file, the environment, the
// flags), or those of the editor's daemon on a data dir.
func whySettings(sf *settingsFlags, editorDataDir string) (config.Settings, error) {
	if editorDataDir == "" {
		return sf.settings()
	}
	if editorDataDir == "default" {
		editorDataDir = ""
	}
	s, err := config.Load(filepath.Join(dataDir(editorDataDir), "settings.json"))
	if err != nil {
		return s, err
	}
	p, err := s.AutoApprove.WithApprovals(strings.Split(sf.autoApprove, ","), sf.yolo)
	s.AutoApprove = p
	return s, err
}

// refuseFlags refuses the flags of cairn run and resume that a policy switch forbids, with a
// sentence naming the file (docs/settings.md, "Policy files"); nil when none is refused or no
// flag asks for anything a switch governs.
func refuseFlags(sf *settingsFlags, dirs []string) error {
	if !sf.noSandbox && !sf.network && !sf.yolo && sf.model == "" {
		return nil
	}
	src := policySources()
	for _, d := range dirs {
		if abs, err := filepath.Abs(d); err == nil {
			src.Roots = append(src.Roots, abs)
		}
	}
	pol, err := policy.Load(src)
	if err != nil {
		return err
	}
	var errs []error
	if w := pol.SandboxRequired(); w.Set() && sf.noSandbox {
		errs = append(errs, policy.Refusal{Key: "sandboxRequired", Want: "--no-sandbox", Switch: w})
	}
	if w := pol.NetworkDenied(); w.Set() && sf.network {
		errs = append(errs, policy.Refusal{Key: "networkAllowed", Want: "--network", Switch: w})
	}
	if w := pol.YoloDenied(); w.Set() && sf.yolo {
		errs = append(errs, policy.Refusal{Key: "yoloAllowed", Want: "--yolo", Switch: w})
	}
	if w := pol.ModelRefused(sf.model); w.Set() && sf.model != "" {
		errs = append(errs, policy.Refusal{Key: "models", Want: "--model " + sf.model, Switch: w})
	}
	return errors.Join(errs...)
}

var errNotFileTool = errors.New("--tool takes a file tool: read_file, write_to_file, replace_in_file, list_files, search_files or list_code_definition_names")

// whyRequest is the approval the tool would ask for in ws, with the checks the tool itself
// makes before asking (protected files, writes and reads outside the workspace, whether
// commands run in the sandbox here).
func whyRequest(ws *workspace.Workspace, s config.Settings, tool, arg string) (tools.Approval, error) {
	if tool == "" {
		req := tools.Approval{Ask: msg.AskCommand, Category: tools.CategoryCommand, Command: arg,
			Protected: tools.ProtectedCommand(ws, arg), OutsideWrite: tools.OutsideWriteCommand(ws, arg),
			ReadsOutside: tools.CommandReadsOutside(ws, arg), Caution: tools.CommandCaution(context.Background(), ws, arg)}
		if st := sandbox.Probe(); !st.Available && !s.SandboxOff {
			req.Unconfined = st.Reason
		}
		return req, nil
	}
	kind := policy.FileKind(tool)
	if kind == "" {
		return tools.Approval{}, fmt.Errorf("%w (not %q)", errNotFileTool, tool)
	}
	abs, inside, err := ws.Resolve(arg)
	if err != nil {
		return tools.Approval{}, err
	}
	req := tools.Approval{Ask: msg.AskTool, Category: kind, Path: abs, Inside: inside}
	if kind == tools.CategoryEdit {
		req.Protected = tools.ProtectedReason(ws, arg)
	}
	return req, nil
}
