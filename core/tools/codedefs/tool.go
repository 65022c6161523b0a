package codedefs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
)

const (
	// Name is the tool's name in the prompt and in tool calls.
	Name = toolnames.ListCodeDefinitionNames
	// MaxFiles caps how many source files of a folder are outlined (Cline's figure).
	MaxFiles = 50
	// MaxFileBytes skips huge files (bundles, generated code): their outline would be noise
	// and parsing them costs seconds.
	MaxFileBytes = 1 << 20
)

// Tool is list_code_definition_names.
type Tool struct{}

// New returns the tool.
func New() *Tool { return &Tool{} }

// Spec implements tools.Tool.
func (*Tool) Spec() tools.Spec {
	return tools.Spec{
		Name:        Name,
		Description: strings.TrimSpace(description),
		Params: []tools.Param{{
			Name:        "path",
			Required:    true,
			Description: message("path"),
			Usage:       message("path_usage"),
		}},
		Category: tools.CategoryRead,
		PlanSafe: true,
		ArgParam: "path",
	}
}

// Run implements tools.Tool.
func (*Tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	path, _ := call.Param("path")
	if strings.TrimSpace(path) == "" {
		return tools.MissingParam(Name, "path"), nil
	}
	abs, inside, err := env.Files.Resolve(path)
	if err != nil {
		return tools.Errorf("%s", err.Error()), nil
	}
	rel := env.Files.Rel(abs)
	if env.Files.Ignored(abs) {
		env.UI.Say(ctx, msg.SayIgnoreError, rel, nil, false)
		return tools.Errorf("%s", message("ignored", rel)), nil
	}

	output, res, err := outline(ctx, env.Files, abs, rel)
	if err != nil || res != nil {
		if res != nil {
			return *res, nil
		}
		return tools.Result{}, err
	}

	ans, err := env.UI.Approve(ctx, tools.Approval{
		Ask:      msg.AskTool,
		Category: tools.CategoryRead,
		Path:     abs,
		Inside:   inside,
		Payload:  &msg.Tool{Op: msg.OpListCodeDefinitions, Path: rel, Content: output, Outside: !inside},
	})
	if err != nil {
		return tools.Result{}, fmt.Errorf("codedefs: approve %s: %w", rel, err)
	}
	if !ans.Approved {
		return tools.Result{Rejected: true, Text: message("denied"), UserFeedback: ans.Text}, nil
	}
	return tools.Result{Text: output, UserFeedback: ans.Text}, nil
}

// ignorer is the part of tools.Files the outline needs.
type ignorer interface {
	Ignored(abs string) bool
}

// outline builds the output for a folder (or a single file). A non-nil Result is a
// model-facing error; a Go error means something broke.
func outline(ctx context.Context, files ignorer, abs, rel string) (string, *tools.Result, error) {
	info, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
			r := tools.Errorf("%s", message("not_found", rel))
			return "", &r, nil
		}
		return "", nil, fmt.Errorf("codedefs: stat %s: %w", rel, err)
	}
	if !info.IsDir() {
		if !Supported(abs) {
			r := tools.Errorf("%s", message("unsupported", rel))
			return "", &r, nil
		}
		out, err := Folder(ctx, filepath.Dir(abs), []string{filepath.Base(abs)})
		return out, nil, err
	}

	entries, err := os.ReadDir(abs)
	if err != nil {
		r := tools.Errorf("%s", message("not_found", rel))
		return "", &r, nil
	}
	var names []string
	for _, e := range entries { // ReadDir sorts by name
		if len(names) == MaxFiles {
			break
		}
		full := filepath.Join(abs, e.Name())
		if !Supported(e.Name()) || files.Ignored(full) {
			continue
		}
		if st, err := os.Stat(full); err != nil || !st.Mode().IsRegular() {
			continue
		}
		names = append(names, e.Name())
	}
	out, err := Folder(ctx, abs, names)
	return out, nil, err
}

// Folder outlines the named files of dir (names relative to dir, in the order given), parsed
// in one cairn-helper run. Unreadable and oversized files are skipped: one bad file should not
// hide the others.
func Folder(ctx context.Context, dir string, names []string) (string, error) {
	paths := make([]string, 0, len(names))
	byPath := make(map[string]string, len(names))
	for _, name := range names {
		full := filepath.Join(dir, name)
		if st, err := os.Stat(full); err != nil || st.Size() > MaxFileBytes {
			continue
		}
		if abs, err := filepath.Abs(full); err == nil {
			paths = append(paths, abs)
			byPath[abs] = name
		}
	}
	parsed, err := parse(ctx, paths)
	if err != nil {
		return "", err
	}
	files := make([]File, 0, len(parsed))
	for _, p := range parsed {
		files = append(files, File{Name: filepath.ToSlash(byPath[p.Path]), Defs: p.Defs})
	}
	return Format(files), nil
}
