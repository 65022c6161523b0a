// Package edit implements write_to_file and replace_in_file (docs/tools.md, "Editing files"): the
// new content is computed by core/diff, shown in the host's diff view while the model streams, and
// saved only when the user approves. A failed, rejected or cancelled edit leaves the file
// byte-identical.
//
// After a save the model is told what is on disk (see resultText): the changes the user or
// the editor's formatter made to the proposal, errors the editor reports that were not there
// before, and the final content or, for long files, only the changed hunks.
package edit

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"sync"

	"github.com/cairnhq/cairn/core/diff"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/toolnames"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/workspace"
)

// descriptions.md holds the two tools' descriptions, one `## tool name` section each.
//
//go:embed descriptions.md
var descriptionsMD string

var descriptions = tools.Texts{MD: &descriptionsMD}

// maxFileSize is the largest file an edit will load.
const maxFileSize = 20 << 20

// Tool is write_to_file or replace_in_file. One value serves one task: it keeps the diff view
// opened while the call streamed, for Run to finish.
type Tool struct {
	whole bool // write_to_file

	// mu guards the streaming state below.
	mu      sync.Mutex
	session tools.DiffSession
	path    string // model path of the open session
	abs     string
	orig    []byte
	isNew   bool
	before  []tools.Diagnostic // the editor's diagnostics for abs before the diff opened
	diagsOK bool               // before is known (the host answered)
	preview *diff.Preview
	failed  bool // the preview met an error; Run reports the authoritative one
	sentLen int  // length of the streamed body at the last update sent to the host
	blocks  int  // blocks located at the last update sent to the host
	// unwatch stops the watcher that reverts the session if the task's context ends before
	// Run takes the session over (a cancel while the call is still streaming).
	unwatch func() bool
}

// The tools' names, in the prompt and in tool calls.
const (
	WriteName   = toolnames.WriteToFile
	ReplaceName = toolnames.ReplaceInFile
)

// NewWrite returns write_to_file.
func NewWrite() *Tool { return &Tool{whole: true} }

// NewReplace returns replace_in_file.
func NewReplace() *Tool { return &Tool{} }

// Spec describes the tool.
func (t *Tool) Spec() tools.Spec {
	if t.whole {
		return tools.Spec{Name: WriteName, Description: descriptions.Format(WriteName), Category: tools.CategoryEdit, ArgParam: "path",
			Params: []tools.Param{
				{Name: "path", Required: true, Description: "File path, relative to the workspace root.", Usage: "File path here"},
				{Name: "content", Required: true, Description: "The complete file content.", Usage: "Your file content here"},
			}}
	}
	return tools.Spec{Name: ReplaceName, Description: descriptions.Format(ReplaceName), Category: tools.CategoryEdit, ArgParam: "path",
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

// load reads the original file (absent: new file): through the host when it serves files
// (tools.Buffers, an editor's unsaved buffer), otherwise from the disk.
func load(ctx context.Context, host tools.Host, abs string) ([]byte, bool, error) {
	info, err := os.Stat(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	if info.IsDir() {
		return nil, false, errors.New("it is a directory")
	}
	if !info.Mode().IsRegular() {
		return nil, false, errors.New("it is " + workspace.FileKind(info.Mode()) + ", not a regular file")
	}
	if info.Size() > maxFileSize {
		return nil, false, errors.New("the file is larger than 20 MB")
	}
	if host != nil {
		text, served, err := tools.HostText(ctx, host, abs)
		if err != nil {
			return nil, false, fmt.Errorf("the editor could not give its text: %w", err)
		}
		if served {
			return []byte(text), false, nil
		}
	}
	b, err := workspace.ReadRegular(ctx, abs, maxFileSize)
	return b, false, err
}

// readOnly returns the mode of an existing file that may not be written ("" and 0 when it may,
// or does not exist). The atomic save would replace such a file through a rename, which needs
// only the folder's permission: it is saved only once the user approved making it writable.
func readOnly(abs string) (fs.FileMode, bool) {
	info, err := os.Stat(abs)
	if err != nil || !info.Mode().IsRegular() || workspace.CheckWritable(abs, info) == nil {
		return 0, false
	}
	return info.Mode().Perm(), true
}

// diagnostics asks the editor for abs's diagnostics; ok is false when the editor could not say.
func diagnostics(ctx context.Context, env *tools.Env, abs string) ([]tools.Diagnostic, bool) {
	ds, err := diagnose(ctx, env, abs)
	return ds, err == nil
}

// errNoEditor: the host has no editor to ask for diagnostics.
var errNoEditor = errors.New("no editor")

// diagnose asks the editor (or, without one that reports problems, the daemon's language
// servers) for abs's diagnostics; the error says why they are not known.
func diagnose(ctx context.Context, env *tools.Env, abs string) ([]tools.Diagnostic, error) {
	ed := env.Host.Editor()
	if ed == nil {
		return nil, errNoEditor
	}
	return ed.Diagnostics(ctx, []string{abs})
}

// sendEvery is how much a streamed body must grow before the diff view gets the next update
// (besides the updates that show a newly located block): a fiftieth of the content, at least
// 64 bytes. Sending the whole proposal on every 20-byte chunk would cost quadratic time and
// traffic on large files.
func sendEvery(contentLen int) int { return max(64, contentLen/50) }

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
		t.dropLocked(ctx)
	}
	if t.session == nil {
		// Nothing is previewed for a call that will be refused (ignored path) or that needs
		// its own approval first (a file outside the workspace, a protected file: the editor
		// may create a new file as the view opens): Run opens the view then.
		abs, inside, err := env.Files.Resolve(path)
		if err != nil || !inside || env.Files.Ignored(abs) || tools.ProtectedReason(env.Files, path) != "" {
			return nil
		}
		if _, ro := readOnly(abs); ro {
			return nil
		}
		orig, isNew, err := load(ctx, env.Host, abs)
		if err != nil {
			return nil
		}
		if !t.whole && isNew {
			return nil
		}
		before, diagsOK := diagnostics(ctx, env, abs)
		s, err := env.Host.Diffs().Open(ctx, abs, string(orig), isNew)
		if err != nil {
			return err
		}
		t.session, t.path, t.abs, t.orig, t.isNew, t.failed = s, path, abs, orig, isNew, false
		t.before, t.diagsOK = before, diagsOK
		t.preview = diff.NewPreview(orig)
		t.sentLen, t.blocks = 0, 0
		t.unwatch = context.AfterFunc(ctx, func() {
			t.mu.Lock()
			defer t.mu.Unlock()
			if t.session == s {
				t.dropLocked(ctx)
			}
		})
	}
	if t.failed {
		return nil
	}
	if t.whole {
		if len(body)-t.sentLen < sendEvery(len(t.orig)+len(body)) {
			return nil
		}
		t.sentLen = len(body)
		proposed := body
		if !t.isNew {
			proposed = string(diff.ApplyWholeFile(t.orig, body)) // the file's BOM and line endings
		}
		return t.session.Update(ctx, proposed, false)
	}
	v := t.preview.Update(body)
	if v.Err != nil {
		t.failed = true
		return nil
	}
	if !v.Changed || v.Blocks == t.blocks && len(body)-t.sentLen < sendEvery(len(t.orig)) {
		return nil
	}
	t.sentLen, t.blocks = len(body), v.Blocks
	return t.session.Update(ctx, string(t.preview.Content()), false)
}

// Run computes the final content, asks for approval in the diff view, and saves or reverts.
func (t *Tool) Run(ctx context.Context, env *tools.Env, call tools.Call) (tools.Result, error) {
	path := call.Params["path"]
	body := call.Params[t.bodyParam()]
	if call.Partial {
		// The call never closed, so its body may be cut short: a diff whose last block lost
		// lines, or half a file. Applying either would lose data (docs/tools.md,
		// "write_to_file and replace_in_file").
		t.closeSession(ctx)
		return errorResult("cut-off", msgData{Path: path, Tool: call.Name}), nil
	}
	abs, inside, err := env.Files.Resolve(path)
	if err != nil {
		t.closeSession(ctx)
		return errorResult("invalid-path", msgData{Path: path, Reason: err.Error()}), nil
	}
	rel := env.Files.Rel(abs)
	if env.Files.Ignored(abs) {
		t.closeSession(ctx)
		env.UI.Say(ctx, msg.SayIgnoreError, path, nil, false)
		return errorResult("ignored", msgData{Path: path}), nil
	}
	// A diff view opened while the call streamed already holds the original: the editor may
	// have created the (empty) new file meanwhile, so the disk is no longer the truth.
	orig, isNew, fromPreview := t.previewOriginal(abs)
	if !fromPreview {
		orig, isNew, err = load(ctx, env.Host, abs)
		if err != nil {
			t.closeSession(ctx)
			return errorResult("unreadable", msgData{Path: rel, Reason: err.Error()}), nil
		}
	}

	var proposed []byte
	var edits []diff.Edit
	if t.whole {
		content := diff.StripFences(body)
		if content != "" && !strings.HasSuffix(content, "\n") {
			content += "\n" // files end with a newline; the parser removed the one before </content>
		}
		if isNew {
			proposed = newFile(content)
		} else {
			proposed = diff.ApplyWholeFile(orig, content)
		}
	} else {
		if isNew {
			t.closeSession(ctx)
			return errorResult("missing-file", msgData{Path: rel}), nil
		}
		res, err := diff.Apply(orig, body)
		if err != nil {
			t.closeSession(ctx)
			var ae *diff.ApplyError
			if errors.As(err, &ae) {
				env.UI.Say(ctx, msg.SayDiffError, path, nil, false)
				return errorResult("replace-failed", msgData{Path: rel, Message: ae.Message}), nil
			}
			return tools.Result{}, fmt.Errorf("edit: %w", err)
		}
		proposed, edits = res.Content, res.Edits
	}

	session, before, diagsOK, err := t.takeSession(ctx, env, abs, orig, isNew)
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

	protected := tools.ProtectedReason(env.Files, path)
	// A read-only file is asked about (never auto-approved); approving makes it writable.
	roMode, ro := readOnly(abs)
	if ro {
		why := render("read-only-reason", msgData{Reason: roMode.String()})
		if protected != "" {
			why = protected + "; " + why
		}
		protected = why
	}
	payload := &msg.Tool{Op: msg.OpEditedExistingFile, Path: rel, Outside: !inside, Protected: protected,
		Diff: Unified(rel, modelText(string(orig)), modelText(string(proposed)), 3)}
	if isNew {
		payload.Op = msg.OpNewFileCreated
		payload.Content = string(proposed)
		payload.Diff = ""
	}
	ans, err := env.UI.Approve(ctx, tools.Approval{Ask: msg.AskTool, Category: tools.CategoryEdit, Path: abs, Inside: inside,
		Protected: protected, Payload: payload})
	if err != nil {
		return tools.Result{}, err
	}
	if !ans.Approved {
		tools.RecordOutcome(ctx, env.UI, msg.OutcomeRejected)
		return tools.Result{Rejected: true, Text: render("rejected", msgData{Path: rel}), UserFeedback: ans.Text}, nil
	}
	writable := roMode | 0o200
	if ro {
		if err := os.Chmod(abs, writable); err != nil {
			tools.RecordOutcome(ctx, env.UI, msg.OutcomeFailed)
			return tools.Result{}, fmt.Errorf("edit: make %s writable: %w", rel, err)
		}
		// Windows keeps only the read-only attribute of a mode: say what the file has now.
		if st, err := os.Stat(abs); err == nil {
			writable = st.Mode().Perm()
		}
	}
	final, err := session.Save(ctx)
	if err != nil {
		if ro {
			err = errors.Join(err, os.Chmod(abs, roMode)) // put the mode back: nothing was saved
		}
		tools.RecordOutcome(ctx, env.UI, msg.OutcomeFailed)
		return tools.Result{}, fmt.Errorf("edit: save %s: %w", rel, err)
	}
	saved = true
	if modelText(final) == modelText(string(proposed)) {
		tools.RecordOutcome(ctx, env.UI, msg.OutcomeSaved)
	} else {
		tools.RecordOutcome(ctx, env.UI, msg.OutcomeSavedWithChanges)
		// The chat shows what was saved, not only what was proposed: a row with what the user
		// (or the editor's formatter) changed in the proposal, the diff the model is told too.
		env.UI.Say(ctx, msg.SayUserFeedbackDiff, "", &msg.Tool{Op: payload.Op, Path: rel, Outside: !inside,
			Diff: Unified(rel, modelText(string(proposed)), modelText(final), 3)}, false)
	}
	o := outcome{rel: rel, orig: string(orig), proposed: string(proposed), final: final, isNew: isNew,
		full: env.Settings.FullEditResults, edits: edits}
	// The errors the edit brought (docs/tools.md, "Editing files"). When the problems before
	// it are not known, those after it are all named; when the ones after it cannot be known
	// (a language server that crashed, hangs or is not up in time), the result says so.
	switch after, err := diagnose(ctx, env, abs); {
	case err == nil && diagsOK:
		o.problems = newErrors(abs, before, after)
	case err == nil:
		o.problems, o.beforeUnknown = newErrors(abs, nil, after), true
	case !errors.Is(err, errNoEditor):
		o.unavailable = err.Error()
	}
	// The chat shows them too, under the edit's row.
	switch {
	case len(o.problems) > 0:
		env.UI.Say(ctx, msg.SayInfo, render("row-problems", msgData{Path: rel, Problems: formatProblems(o.problems)}), nil, false)
	case o.unavailable != "":
		env.UI.Say(ctx, msg.SayInfo, render("row-unavailable", msgData{Path: rel, Reason: o.unavailable}), nil, false)
	}
	text := resultText(o)
	if ro {
		text = render("made-writable", msgData{Path: rel, Reason: writable.String()}) + "\n\n" + text
	}
	return tools.Result{Text: text, Changed: []string{abs}, Read: []string{abs}, UserFeedback: ans.Text}, nil
}

func errorResult(key string, d msgData) tools.Result {
	return tools.Result{Text: render(key, d), IsError: true}
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

// takeSession returns the session opened while streaming for this file, or opens one, with
// the editor's diagnostics from before the diff opened.
func (t *Tool) takeSession(ctx context.Context, env *tools.Env, abs string, orig []byte, isNew bool) (tools.DiffSession, []tools.Diagnostic, bool, error) {
	t.mu.Lock()
	if t.session != nil && t.abs == abs {
		s, before, ok := t.session, t.before, t.diagsOK
		t.forgetLocked()
		t.mu.Unlock()
		return s, before, ok, nil
	}
	t.dropLocked(ctx)
	t.mu.Unlock()
	before, ok := diagnostics(ctx, env, abs)
	s, err := env.Host.Diffs().Open(ctx, abs, string(orig), isNew)
	return s, before, ok, err
}

// closeSession reverts the streaming session, if any.
func (t *Tool) closeSession(ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dropLocked(ctx)
}

// dropLocked reverts the streaming session, if any, and forgets it.
func (t *Tool) dropLocked(ctx context.Context) {
	s := t.session
	t.forgetLocked()
	if s != nil {
		_ = s.Revert(context.WithoutCancel(ctx))
	}
}

// forgetLocked clears the streaming state without touching the session.
func (t *Tool) forgetLocked() {
	if t.unwatch != nil {
		t.unwatch()
		t.unwatch = nil
	}
	t.session, t.preview, t.orig, t.before = nil, nil, nil, nil
	t.path, t.abs = "", ""
}

// newFileCRLF is whether new files get CRLF line endings: on Windows, as VS Code's default
// ("files.eol": "auto") gives them; LF everywhere else. Existing files keep their own.
var newFileCRLF = runtime.GOOS == "windows"

// newFile is the bytes of a new file written with content.
func newFile(content string) []byte {
	if !newFileCRLF {
		return []byte(content)
	}
	return []byte(strings.ReplaceAll(strings.ReplaceAll(content, "\r\n", "\n"), "\n", "\r\n"))
}
