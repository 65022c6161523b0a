// Package edit implements write_to_file and replace_in_file (spec §9): the new content is
// computed by core/diff, shown in the host's diff view while the model streams, and saved only
// when the user approves. A failed or rejected edit leaves the file byte-identical.
package edit

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"

	"github.com/cairnhq/cairn/core/diff"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

//go:embed descriptions/*.md
var descriptions embed.FS

func describe(name string) string {
	b, err := descriptions.ReadFile("descriptions/" + name + ".md")
	if err != nil {
		panic("edit: missing description " + name)
	}
	return strings.TrimSpace(string(b))
}

// compactThreshold: files up to this many lines come back whole after an edit (spec §9).
const compactThreshold = 300

// maxFileSize is the largest file an edit will load.
const maxFileSize = 20 << 20

// Tool is write_to_file or replace_in_file. One value serves one task: it keeps the diff view
// opened while the call streamed, for Run to finish.
type Tool struct {
	whole bool // write_to_file

	// mu guards the streaming state.
	mu      sync.Mutex
	session tools.DiffSession
	path    string // model path of the open session
	abs     string
	orig    []byte
	isNew   bool
	preview *diff.Preview
	failed  bool // the preview met an error; Run reports the authoritative one
}

// NewWrite returns write_to_file.
func NewWrite() *Tool { return &Tool{whole: true} }

// NewReplace returns replace_in_file.
func NewReplace() *Tool { return &Tool{} }

// Spec describes the tool.
func (t *Tool) Spec() tools.Spec {
	if t.whole {
		return tools.Spec{Name: "write_to_file", Description: describe("write_to_file"), Category: tools.CategoryEdit, ArgParam: "path",
			Params: []tools.Param{
				{Name: "path", Required: true, Description: "File path, relative to the workspace root.", Usage: "File path here"},
				{Name: "content", Required: true, Description: "The complete file content.", Usage: "Your file content here"},
			}}
	}
	return tools.Spec{Name: "replace_in_file", Description: describe("replace_in_file"), Category: tools.CategoryEdit, ArgParam: "path",
		Params: []tools.Param{
			{Name: "path", Required: true, Description: "File path, relative to the workspace root.", Usage: "File path here"},
			{Name: "diff", Required: true, Description: "One or more SEARCH/REPLACE blocks.", Usage: "Search and replace blocks here"},
		}}
}

func (t *Tool) bodyParam() string {
	if t.whole {
		return "content"
	}
	return "diff"
}

// load reads the original file (absent: new file).
func load(abs string) ([]byte, bool, error) {
	info, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	if info.IsDir() {
		return nil, false, fmt.Errorf("%s is a directory", abs)
	}
	if info.Size() > maxFileSize {
		return nil, false, fmt.Errorf("the file is larger than 20 MB")
	}
	b, err := os.ReadFile(abs)
	return b, false, err
}

// Preview fills the diff view while the call streams. Errors here are not fatal: Run decides.
func (t *Tool) Preview(ctx context.Context, env *tools.Env, call tools.Call) error {
	path, ok := call.Params["path"]
	body, hasBody := call.Params[t.bodyParam()]
	if !ok || !hasBody || path == "" {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.session != nil && t.path != path {
		_ = t.session.Revert(ctx)
		t.session = nil
	}
	if t.session == nil {
		abs, _, err := env.Files.Resolve(path)
		if err != nil || env.Files.Ignored(abs) {
			return nil
		}
		orig, isNew, err := load(abs)
		if err != nil {
			return nil
		}
		if !t.whole && isNew {
			return nil
		}
		s, err := env.Host.Diffs().Open(ctx, abs, string(orig), isNew)
		if err != nil {
			return err
		}
		t.session, t.path, t.abs, t.orig, t.isNew, t.failed = s, path, abs, orig, isNew, false
		t.preview = diff.NewPreview(orig)
	}
	if t.failed {
		return nil
	}
	if t.whole {
		return t.session.Update(ctx, body, false)
	}
	v := t.preview.Update(body)
	if v.Err != nil {
		t.failed = true
		return nil
	}
	if v.Changed {
		return t.session.Update(ctx, string(t.preview.Content()), false)
	}
	return nil
}

// Run computes the final content, asks for approval in the diff view, and saves or reverts.
func (t *Tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	path := call.Params["path"]
	body := call.Params[t.bodyParam()]
	abs, inside, err := env.Files.Resolve(path)
	if err != nil {
		t.closeSession(ctx)
		return tools.Errorf("Invalid path %q: %v", path, err), nil
	}
	if env.Files.Ignored(abs) {
		t.closeSession(ctx)
		env.UI.Say(ctx, msg.SayIgnoreError, path, nil, false)
		return tools.Errorf("Access to %s is blocked by the .cairnignore file settings. Continue the task without this file, or ask the user to update the ignore file.", path), nil
	}
	// A diff view opened while the call streamed already holds the original: the editor may
	// have created the (empty) new file meanwhile, so the disk is no longer the truth.
	orig, isNew, fromPreview := t.previewOriginal(abs)
	if !fromPreview {
		orig, isNew, err = load(abs)
		if err != nil {
			t.closeSession(ctx)
			return tools.Errorf("Cannot read %s: %v", path, err), nil
		}
	}

	var proposed []byte
	if t.whole {
		content := diff.StripFences(body)
		if content != "" && !strings.HasSuffix(content, "\n") {
			content += "\n" // files end with a newline; the parser removed the one before </content>
		}
		if isNew {
			proposed = []byte(content)
		} else {
			proposed = diff.ApplyWholeFile(orig, content)
		}
	} else {
		if isNew {
			t.closeSession(ctx)
			return tools.Errorf("The file %s does not exist. Use write_to_file to create it.", path), nil
		}
		res, err := diff.Apply(orig, body)
		if err != nil {
			t.closeSession(ctx)
			var ae *diff.ApplyError
			if errors.As(err, &ae) {
				env.UI.Say(ctx, msg.SayDiffError, path, nil, false)
				return tools.Errorf("%s\n\nThe file %s was not changed.", ae.Message, path), nil
			}
			return tools.Result{}, fmt.Errorf("edit: %w", err)
		}
		proposed = res.Content
	}

	session, err := t.takeSession(ctx, env, path, abs, orig, isNew)
	if err != nil {
		return tools.Result{}, fmt.Errorf("edit: open diff view: %w", err)
	}
	// Whatever happens next, a session that was not saved is reverted — with a context that
	// survives cancellation, so a cancelled task never leaves a half-shown proposal behind.
	saved := false
	defer func() {
		if !saved {
			_ = session.Revert(context.WithoutCancel(ctx))
		}
	}()
	if err := session.Update(ctx, string(proposed), true); err != nil {
		return tools.Result{}, fmt.Errorf("edit: update diff view: %w", err)
	}

	rel := env.Files.Rel(abs)
	payload := &msg.Tool{Op: msg.OpEditedExistingFile, Path: rel, Outside: !inside,
		Diff: Unified(rel, string(orig), string(proposed), 3)}
	if isNew {
		payload.Op = msg.OpNewFileCreated
		payload.Content = string(proposed)
		payload.Diff = ""
	}
	ans, err := env.UI.Approve(ctx, tools.Approval{Ask: msg.AskTool, Category: tools.CategoryEdit, Path: abs, Inside: inside, Payload: payload})
	if err != nil {
		return tools.Result{}, err
	}
	if !ans.Approved {
		return tools.Result{Rejected: true, Text: "The user denied this operation. The file was not changed.", UserFeedback: ans.Text}, nil
	}
	final, err := session.Save(ctx)
	if err != nil {
		return tools.Result{}, fmt.Errorf("edit: save %s: %w", rel, err)
	}
	saved = true
	return tools.Result{Text: resultText(env, rel, string(orig), string(proposed), final, isNew),
		Changed: []string{abs}, Read: []string{abs}, UserFeedback: ans.Text}, nil
}

// previewOriginal returns the original captured when the streaming diff view opened for abs.
func (t *Tool) previewOriginal(abs string) ([]byte, bool, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.session == nil || t.abs != abs {
		return nil, false, false
	}
	return t.orig, t.isNew, true
}

// takeSession returns the session opened while streaming for this file, or opens one.
func (t *Tool) takeSession(ctx context.Context, env *tools.Env, path, abs string, orig []byte, isNew bool) (tools.DiffSession, error) {
	t.mu.Lock()
	s := t.session
	sameFile := s != nil && t.abs == abs
	t.session, t.preview = nil, nil
	t.mu.Unlock()
	if s != nil && !sameFile {
		_ = s.Revert(context.WithoutCancel(ctx))
		s = nil
	}
	if s != nil {
		return s, nil
	}
	return env.Host.Diffs().Open(ctx, abs, string(orig), isNew)
}

func (t *Tool) closeSession(ctx context.Context) {
	t.mu.Lock()
	s := t.session
	t.session, t.preview = nil, nil
	t.mu.Unlock()
	if s != nil {
		_ = s.Revert(context.WithoutCancel(ctx))
	}
}

// resultText tells the model what is on disk now (spec §9): the user's edits and the editor's
// formatting as diffs, and the final content when it differs from the proposal or the file is
// small; otherwise only the changed hunks, to save tokens.
func resultText(env *tools.Env, rel, orig, proposed, final string, isNew bool) string {
	var b strings.Builder
	if final != proposed {
		fmt.Fprintf(&b, "The user made the following updates to your content before saving (or the editor formatted it):\n\n%s\n", Unified(rel, proposed, final, 3))
		fmt.Fprintf(&b, "The updated content, which includes both your original changes and these additional edits, has been saved to %s. Here is the full, final content of the file:\n\n<final_file_content path=\"%s\">\n%s\n</final_file_content>\n\n"+
			"Use this final content as the reference for any further edits; for replace_in_file, your SEARCH blocks must match it exactly.", rel, rel, final)
		return b.String()
	}
	lines := strings.Count(final, "\n") + 1
	if isNew || env.Settings.FullEditResults || lines <= compactThreshold {
		fmt.Fprintf(&b, "The content was successfully saved to %s.\n\nHere is the full, final content of the file:\n\n<final_file_content path=\"%s\">\n%s\n</final_file_content>", rel, rel, final)
		return b.String()
	}
	fmt.Fprintf(&b, "The content was successfully saved to %s exactly as you wrote it (%d lines). The changed regions, with context, are:\n\n%s", rel, lines, Unified(rel, orig, final, 3))
	return b.String()
}
