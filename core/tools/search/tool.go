package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

// Name is the tool's name in the prompt.
const Name = toolnames.SearchFiles

// Tool is search_files.
type Tool struct {
	indexes *Indexes // nil: every search scans
}

// New returns the search_files tool without indexes: every search scans. A one-shot process
// (`cairn tool` without --connect) uses it: a background build would only compete with its
// one scan.
func New() *Tool { return &Tool{} }

// NewIndexed returns the search_files tool over the daemon's indexes (its composition root
// makes them and closes them), so the tasks on one workspace share one warm index.
func NewIndexed(idx *Indexes) *Tool { return &Tool{indexes: idx} }

// files is what search_files needs from env.Files: the workspace plus ignore-aware walking.
type files interface {
	tools.Files
	Walker
}

// Spec implements tools.Tool.
func (*Tool) Spec() tools.Spec {
	return tools.Spec{
		Name:        Name,
		Description: strings.TrimSpace(description),
		Params: []tools.Param{
			{Name: "path", Required: true, Description: message("param_path"), Usage: "Directory path here"},
			{Name: "regex", Required: true, Description: message("param_regex"), Usage: "Your regex pattern here"},
			{Name: "file_pattern", Description: message("param_file_pattern"), Usage: "file pattern here (optional)"},
		},
		Category: tools.CategoryRead,
		PlanSafe: true,
		ArgParam: "regex",
	}
}

// Run implements tools.Tool.
func (t *Tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	path, ok := call.Param("path")
	if !ok || strings.TrimSpace(path) == "" {
		return tools.MissingParam(Name, "path"), nil
	}
	regex, ok := call.Param("regex")
	if !ok || regex == "" {
		return tools.MissingParam(Name, "regex"), nil
	}
	pattern, _ := call.Param("file_pattern")
	pattern = strings.TrimSpace(pattern)

	fs, ok := env.Files.(files)
	if !ok {
		return tools.Result{}, ErrNoTree
	}
	abs, inside, err := fs.Resolve(strings.TrimSpace(path))
	if err != nil {
		return tools.Errorf("%v", err), nil
	}
	rel := fs.Rel(abs)
	if fs.Ignored(abs) {
		env.UI.Say(ctx, msg.SayIgnoreError, rel, nil, false)
		return tools.Errorf("%s", message("blocked", rel)), nil
	}
	if _, err := os.Stat(abs); err != nil {
		return tools.Errorf("%s", message("not_found", rel)), nil
	}
	idx := t.indexes
	// `.` with several roots searches them all; Rel labels
	// the files of the other roots `name:path`.
	res, err := InRoots(ctx, searchedRoots(fs, fs.Root(), abs), Options{Regex: regex, FilePattern: pattern, Context: 1, Tree: fs, Indexes: idx})
	switch {
	case errors.Is(err, ErrBadRegex):
		return tools.Errorf("%s", message("bad_regex", strings.TrimPrefix(err.Error(), ErrBadRegex.Error()+": "))), nil
	case errors.Is(err, ErrBadGlob):
		return tools.Errorf("%s", message("bad_glob", pattern)), nil
	case err != nil:
		return tools.Result{}, fmt.Errorf("search %s: %w", rel, err)
	}
	out := res.Format(fs.Rel)

	ans, err := env.UI.Approve(ctx, tools.Approval{
		Ask:      msg.AskTool,
		Category: tools.CategoryRead,
		Path:     abs,
		Inside:   inside,
		Payload:  &msg.Tool{Op: msg.OpSearchFiles, Path: rel, Regex: regex, FilePattern: pattern, Content: out, Outside: !inside},
	})
	if err != nil {
		return tools.Result{}, fmt.Errorf("search %s: approval: %w", rel, err)
	}
	if !ans.Approved {
		return tools.Result{Text: message("denied"), Rejected: true, UserFeedback: ans.Text}, nil
	}
	return tools.Result{Text: out, UserFeedback: ans.Text}, nil
}
