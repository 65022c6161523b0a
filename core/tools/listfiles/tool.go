package listfiles

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

// Name is the tool's name in the prompt.
const Name = toolnames.ListFiles

// Tool is list_files.
type Tool struct {
	lists *workspace.Lists // the daemon's file lists (nil: every listing reads the disk)
}

// New returns the list_files tool. Listings of a root whose file list is held open in lists
// (the @ index or the search index holds it) read it instead of the disk; nil lists: the
// disk.
func New(lists *workspace.Lists) *Tool { return &Tool{lists: lists} }

// files is what list_files needs from env.Files: the workspace plus folder walking.
type files interface {
	tools.Files
	Tree
}

// Spec implements tools.Tool.
func (*Tool) Spec() tools.Spec {
	return tools.Spec{
		Name:        Name,
		Description: strings.TrimSpace(description),
		Params: []tools.Param{
			{Name: "path", Required: true, Description: message("param_path"), Usage: "Directory path here"},
			{Name: "recursive", Description: message("param_recursive"), Usage: "true or false (optional)"},
		},
		Category: tools.CategoryRead,
		PlanSafe: true,
		ArgParam: "path",
	}
}

// Run implements tools.Tool.
func (tl *Tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	path, ok := call.Param("path")
	if !ok || strings.TrimSpace(path) == "" {
		return tools.MissingParam(Name, "path"), nil
	}
	rv, _ := call.Param("recursive")
	recursive := strings.EqualFold(strings.TrimSpace(rv), "true")

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
	var entries []string
	var truncated bool
	var tree Tree = fs
	if tl.lists != nil {
		tree = Listed{Tree: fs, Lists: tl.lists}
	}
	if rs, ok := fs.(rooted); ok && abs == fs.Root() && len(rs.Roots()) > 1 {
		// `.` with several roots lists them all, the other roots' entries labelled `name:path`.
		entries, truncated, err = ListRoots(ctx, tree, rs.Roots(), recursive, DefaultLimit)
	} else {
		entries, truncated, err = List(ctx, tree, abs, recursive, DefaultLimit)
	}
	switch {
	case errors.Is(err, ErrNotDir):
		return tools.Errorf("%s", message("not_found", rel)), nil
	case errors.Is(err, ErrRefused):
		return tools.Errorf("%s", message("refused", rel)), nil
	case err != nil:
		return tools.Result{}, fmt.Errorf("list %s: %w", rel, err)
	}
	listing := Format(entries, truncated)

	op := msg.OpListFilesTopLevel
	if recursive {
		op = msg.OpListFilesRecursive
	}
	ans, err := env.UI.Approve(ctx, tools.Approval{
		Ask:      msg.AskTool,
		Category: tools.CategoryRead,
		Path:     abs,
		Inside:   inside,
		Payload:  &msg.Tool{Op: op, Path: rel, Content: listing, Outside: !inside},
	})
	if err != nil {
		return tools.Result{}, fmt.Errorf("list %s: approval: %w", rel, err)
	}
	if !ans.Approved {
		return tools.Result{Text: message("denied"), Rejected: true, UserFeedback: ans.Text}, nil
	}
	return tools.Result{Text: listing, UserFeedback: ans.Text}, nil
}
