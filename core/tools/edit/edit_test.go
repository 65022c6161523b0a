package edit

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/tools"
)

const small = "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"

func TestReplaceApproved(t *testing.T) {
	f := newFixture(t, map[string]string{"main.go": small})
	res, err := NewReplace().Run(context.Background(), f.env, replaceCall("main.go", block("\tprintln(\"hi\")\n", "\tprintln(\"hello\")\n")))
	if err != nil || res.IsError {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	want := strings.Replace(small, "hi", "hello", 1)
	if got := f.read("main.go"); got != want {
		t.Fatalf("file = %q, want %q", got, want)
	}
	if len(res.Changed) != 1 || res.Changed[0] != f.path("main.go") {
		t.Errorf("Changed = %v", res.Changed)
	}
	if len(f.ui.approvals) != 1 {
		t.Fatalf("approvals = %d", len(f.ui.approvals))
	}
	a := f.ui.approvals[0]
	p := a.Payload.(*msg.Tool)
	if !a.Inside || p.Outside || a.Category != tools.CategoryEdit || p.Op != msg.OpEditedExistingFile ||
		!strings.Contains(p.Diff, "-\tprintln(\"hi\")\n+\tprintln(\"hello\")\n") {
		t.Errorf("approval = %+v, payload = %+v", a, p)
	}
	golden.File(t, filepath.Join("testdata", "results", "replace_small"+".golden"), res.Text)
}

func TestRejectLeavesFileIdentical(t *testing.T) {
	f := newFixture(t, map[string]string{"main.go": small})
	if err := os.Chmod(f.path("main.go"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := f.snap("main.go")
	f.ui.answer = tools.Answer{Approved: false, Text: "not like that"}
	res, err := NewReplace().Run(context.Background(), f.env, replaceCall("main.go", block("\tprintln(\"hi\")\n", "\tprintln(\"bye\")\n")))
	if err != nil || !res.Rejected || res.UserFeedback != "not like that" || !strings.Contains(res.Text, "denied") {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	f.unchanged("main.go", before)
	ss := f.host.opened()
	if _, saved, reverted := ss[0].state(); len(ss) != 1 || saved || !reverted {
		t.Fatalf("diff view: saved=%v reverted=%v", saved, reverted)
	}
}

// New files take the platform's default line ending (CRLF on Windows); an existing file keeps
// its own whatever the platform.
func TestNewFileLineEndings(t *testing.T) {
	for _, crlf := range []bool{false, true} {
		t.Run(fmt.Sprintf("crlf=%v", crlf), func(t *testing.T) {
			old := newFileCRLF
			newFileCRLF = crlf
			t.Cleanup(func() { newFileCRLF = old })
			f := newFixture(t, map[string]string{"lf.txt": "a\nb\n"})
			for _, c := range []tools.Call{writeCall("new.txt", "one\ntwo"), writeCall("lf.txt", "x\ny")} {
				if res, err := NewWrite().Run(context.Background(), f.env, c); err != nil || res.IsError {
					t.Fatalf("Run = %+v, %v", res, err)
				}
			}
			want := "one\ntwo\n"
			if crlf {
				want = "one\r\ntwo\r\n"
			}
			if got := f.read("new.txt"); got != want {
				t.Errorf("new file = %q, want %q", got, want)
			}
			if got := f.read("lf.txt"); got != "x\ny\n" {
				t.Errorf("existing LF file = %q, want LF kept", got)
			}
		})
	}
}

func TestRejectNewFileRemovesFolders(t *testing.T) {
	f := newFixture(t, nil)
	f.ui.answer = tools.Answer{Approved: false}
	res, err := NewWrite().Run(context.Background(), f.env, writeCall("a/b/c/new.txt", "hello\n"))
	if err != nil || !res.Rejected {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if _, err := os.Stat(f.path("a")); !os.IsNotExist(err) {
		t.Fatalf("folder a/ survived a rejected new file: %v", err)
	}
}

func TestNewFileInNewFolders(t *testing.T) {
	f := newFixture(t, nil)
	res, err := NewWrite().Run(context.Background(), f.env, writeCall("a/b/new.txt", "one\ntwo"))
	if err != nil || res.IsError {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if got := f.read("a/b/new.txt"); got != newFileText("one\ntwo\n") {
		t.Fatalf("file = %q", got)
	}
	p := f.ui.approvals[0].Payload.(*msg.Tool)
	if p.Op != msg.OpNewFileCreated || p.Content != newFileText("one\ntwo\n") || p.Path != "a/b/new.txt" {
		t.Errorf("payload = %+v", p)
	}
	golden.File(t, filepath.Join("testdata", "results", "new_file_small"+".golden"), res.Text)
}

func TestCancelWhileAskingReverts(t *testing.T) {
	for _, name := range []string{"existing.txt", "brand/new.txt"} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, map[string]string{"existing.txt": "keep me\n"})
			before := f.snap("existing.txt")
			f.ui.block, f.ui.asking = true, make(chan struct{})
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := NewWrite().Run(ctx, f.env, writeCall(name, "replaced\n"))
				done <- err
			}()
			<-f.ui.asking
			cancel()
			if err := <-done; err == nil {
				t.Fatal("Run returned no error after cancel")
			}
			f.unchanged("existing.txt", before)
			if _, err := os.Stat(f.path("brand")); !os.IsNotExist(err) {
				t.Errorf("folder of a cancelled new file survived: %v", err)
			}
			ss := f.host.opened()
			if _, saved, reverted := ss[0].state(); saved || !reverted {
				t.Fatalf("diff view: saved=%v reverted=%v", saved, reverted)
			}
		})
	}
}

func TestIgnoredPath(t *testing.T) {
	f := newFixture(t, map[string]string{".cairnignore": "secret/\n", "secret/key.txt": "k\n"})
	before := f.snap("secret/key.txt")
	tool := NewWrite()
	if err := tool.Preview(context.Background(), f.env, writeCall("secret/key.txt", "leak")); err != nil {
		t.Fatal(err)
	}
	res, err := tool.Run(context.Background(), f.env, writeCall("secret/key.txt", "leak\n"))
	if err != nil || !res.IsError || !strings.Contains(res.Text, ".cairnignore") {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	f.unchanged("secret/key.txt", before)
	if n := len(f.host.opened()); n != 0 || len(f.ui.approvals) != 0 {
		t.Fatalf("an ignored file got %d diff views and %d approvals", n, len(f.ui.approvals))
	}
	if !f.ui.said(msg.SayIgnoreError) {
		t.Error("no ignore error shown to the user")
	}
}

func TestOutsideWorkspaceIsFlagged(t *testing.T) {
	f := newFixture(t, nil)
	other := filepath.Join(t.TempDir(), "elsewhere.txt")
	res, err := NewWrite().Run(context.Background(), f.env, writeCall(other, "x\n"))
	if err != nil || res.IsError {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	a := f.ui.approvals[0]
	if a.Inside || !a.Payload.(*msg.Tool).Outside {
		t.Fatalf("approval for a path outside the workspace: Inside=%v Outside=%v", a.Inside, a.Payload.(*msg.Tool).Outside)
	}
}

func TestWriteKeepsCRLFAndBOM(t *testing.T) {
	orig := "\uFEFFline one\r\nline two\r\n"
	f := newFixture(t, map[string]string{"win.txt": orig})
	res, err := NewWrite().Run(context.Background(), f.env, writeCall("win.txt", "line one\nline 2\nline three\n"))
	if err != nil || res.IsError {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if got, want := f.read("win.txt"), "\uFEFFline one\r\nline 2\r\nline three\r\n"; got != want {
		t.Fatalf("file = %q, want %q", got, want)
	}
	// The model reads LF text without a BOM, and is not told of "changes" it did not see.
	if strings.Contains(res.Text, "\r") || strings.Contains(res.Text, "\uFEFF") || strings.Contains(res.Text, "not exactly") {
		t.Errorf("result text = %q", res.Text)
	}
}

func TestWriteStripsFences(t *testing.T) {
	f := newFixture(t, nil)
	if _, err := NewWrite().Run(context.Background(), f.env, writeCall("x.go", "```go\npackage x\n```\n")); err != nil {
		t.Fatal(err)
	}
	if got := f.read("x.go"); got != newFileText("package x\n") {
		t.Fatalf("file = %q", got)
	}
}

func TestReplaceFailureLeavesFileAndShowsClosest(t *testing.T) {
	orig := "alpha\nbeta\ngamma\ndelta\n"
	f := newFixture(t, map[string]string{"g.txt": orig})
	before := f.snap("g.txt")
	tool := NewReplace()
	bad := block("alpha\n", "ALPHA\n") + block("gama\ndelta\n", "x\n")
	// The streaming preview opened a diff view; a failing call must close it.
	if err := tool.Preview(context.Background(), f.env, replaceCall("g.txt", bad[:20])); err != nil {
		t.Fatal(err)
	}
	res, err := tool.Run(context.Background(), f.env, replaceCall("g.txt", bad))
	if err != nil || !res.IsError {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	for _, want := range []string{"g.txt", "was not changed", "Block 2", "gama", "3 | gamma", "4 | delta"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("error text lacks %q:\n%s", want, res.Text)
		}
	}
	f.unchanged("g.txt", before)
	for _, s := range f.host.opened() {
		if _, saved, reverted := s.state(); saved || !reverted {
			t.Fatalf("a diff view was left open or saved: saved=%v reverted=%v", saved, reverted)
		}
	}
	if !f.ui.said(msg.SayDiffError) || len(f.ui.approvals) != 0 {
		t.Errorf("diff_error shown=%v, approvals=%d", f.ui.said(msg.SayDiffError), len(f.ui.approvals))
	}
	golden.File(t, filepath.Join("testdata", "results", "replace_no_match"+".golden"), res.Text)
}

func TestReplaceMissingFile(t *testing.T) {
	f := newFixture(t, nil)
	res, err := NewReplace().Run(context.Background(), f.env, replaceCall("nope.txt", block("a\n", "b\n")))
	if err != nil || !res.IsError || !strings.Contains(res.Text, "write_to_file") {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if _, err := os.Stat(f.path("nope.txt")); !os.IsNotExist(err) {
		t.Fatal("a failed replace created the file")
	}
}

func TestPreviewStreamsAndRunReusesSession(t *testing.T) {
	orig := genLines(40)
	f := newFixture(t, map[string]string{"big.txt": orig})
	tool := NewReplace()
	d := block("line 10\n", "ten\n") + block("line 30\n", "thirty\n")
	for i := 1; i <= len(d); i += 7 {
		if err := tool.Preview(context.Background(), f.env, replaceCall("big.txt", d[:i])); err != nil {
			t.Fatal(err)
		}
	}
	ss := f.host.opened()
	if len(ss) != 1 {
		t.Fatalf("diff views opened while streaming = %d, want 1", len(ss))
	}
	ups, _, _ := ss[0].state()
	if len(ups) == 0 || !strings.Contains(ups[len(ups)-1], "ten\n") {
		t.Fatalf("the preview never showed the first block: %d updates", len(ups))
	}
	if _, err := tool.Run(context.Background(), f.env, replaceCall("big.txt", d)); err != nil {
		t.Fatal(err)
	}
	if n := len(f.host.opened()); n != 1 {
		t.Fatalf("Run opened another diff view: %d in all", n)
	}
	if _, saved, _ := ss[0].state(); !saved {
		t.Fatal("the streamed session was not the one saved")
	}
	if got := f.read("big.txt"); !strings.Contains(got, "\nten\n") || !strings.Contains(got, "\nthirty\n") {
		t.Fatalf("file = %q", got)
	}
}

func TestWritePreviewKeepsOriginalForNewFile(t *testing.T) {
	// The editor creates the new file (empty) when the diff opens; Run must still treat the
	// file as new, or a reject would leave an empty file behind.
	f := newFixture(t, nil)
	f.ui.answer = tools.Answer{Approved: false}
	tool := NewWrite()
	content := strings.Repeat("some text\n", 20)
	for i := 1; i <= len(content); i += 20 {
		if err := tool.Preview(context.Background(), f.env, writeCall("d/n.txt", content[:i])); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(f.path("d/n.txt")); err != nil {
		t.Fatalf("the fake editor should show the new file while streaming: %v", err)
	}
	res, err := tool.Run(context.Background(), f.env, writeCall("d/n.txt", content))
	if err != nil || !res.Rejected {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if _, err := os.Stat(f.path("d")); !os.IsNotExist(err) {
		t.Fatalf("rejected new file left its folder behind: %v", err)
	}
	if f.ui.approvals[0].Payload.(*msg.Tool).Op != msg.OpNewFileCreated {
		t.Error("a streamed new file was presented as an edit of an existing one")
	}
}

func TestPreviewCancelledRevertsSession(t *testing.T) {
	f := newFixture(t, nil)
	f.host.reverted = make(chan *fakeSession, 1)
	ctx, cancel := context.WithCancel(context.Background())
	tool := NewWrite()
	if err := tool.Preview(ctx, f.env, writeCall("x/new.txt", strings.Repeat("abc\n", 40))); err != nil {
		t.Fatal(err)
	}
	cancel() // the task is cancelled while the call is still streaming: Run never comes
	<-f.host.reverted
	if _, err := os.Stat(f.path("x")); !os.IsNotExist(err) {
		t.Fatalf("a cancelled streaming preview left its new folder behind: %v", err)
	}
}

func TestPreviewOfAnotherFileRevertsTheFirst(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	tool := NewWrite()
	for _, p := range []string{"a.txt", "b.txt"} {
		if err := tool.Preview(context.Background(), f.env, writeCall(p, strings.Repeat("x", 100))); err != nil {
			t.Fatal(err)
		}
	}
	ss := f.host.opened()
	if _, _, reverted := ss[0].state(); len(ss) != 2 || !reverted {
		t.Fatalf("sessions = %d, first reverted = %v", len(ss), reverted)
	}
}

func TestPreviewThrottlesLargeFiles(t *testing.T) {
	orig := genLines(20_000)
	f := newFixture(t, map[string]string{"huge.txt": orig})
	tool := NewReplace()
	var d strings.Builder
	for i := 1; i <= 10; i++ {
		n := i * 1000
		d.WriteString(block(fmt.Sprintf("line %d\n", n), fmt.Sprintf("changed %d\na second line\na third line\n", n)))
	}
	diff := d.String()
	for i := 20; ; i += 20 {
		if err := tool.Preview(context.Background(), f.env, replaceCall("huge.txt", diff[:min(i, len(diff))])); err != nil {
			t.Fatal(err)
		}
		if i >= len(diff) {
			break
		}
	}
	ups, _, _ := f.host.opened()[0].state()
	// One update per located block is enough; per REPLACE line would be 40.
	if len(ups) < 10 || len(ups) > 20 {
		t.Fatalf("%d updates of a %d-byte file for 10 blocks", len(ups), len(orig))
	}
}

// genLines is "line 1\n" … "line n\n".
func genLines(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// TestResultText covers what the model is told after a save (docs/tools.md, "Editing files"): the
// whole file when it is small, differs from the proposal or the setting asks; otherwise only
// changed hunks.
func TestResultText(t *testing.T) {
	long := genLines(400)
	longEdited := strings.Replace(long, "line 200\n", "line two hundred\n", 1)
	cases := []struct {
		name    string
		files   map[string]string
		call    tools.Call
		onSave  func(string) string
		full    bool
		want    []string // substrings
		notWant []string
	}{
		{name: "long_exact_compact", files: map[string]string{"l.txt": long},
			call: replaceCall("l.txt", block("line 200\n", "line two hundred\n")),
			want: []string{"successfully saved", "400 lines", "@@ -197,7 +197,7 @@", "+line two hundred"}, notWant: []string{"final_file_content", "line 1\n"}},
		{name: "long_exact_full_setting", files: map[string]string{"l.txt": long}, full: true,
			call: replaceCall("l.txt", block("line 200\n", "line two hundred\n")),
			want: []string{"successfully saved", "<final_file_content path=\"l.txt\">\nline 1\n", "line 400\n</final_file_content>"}, notWant: []string{"@@"}},
		{name: "long_user_edited", files: map[string]string{"l.txt": long},
			call:   replaceCall("l.txt", block("line 200\n", "line two hundred\n")),
			onSave: func(s string) string { return strings.Replace(s, "line 300\n", "line 300 // user\n", 1) },
			want:   []string{"the user or by the editor's formatter", "-line 300\n+line 300 // user\n", "<final_file_content", "line 300 // user\n"}},
		{name: "formatter_on_small", files: map[string]string{"s.go": small},
			call:   replaceCall("s.go", block("\tprintln(\"hi\")\n", "        println(\"hi\")\n")),
			onSave: func(s string) string { return strings.ReplaceAll(s, "        ", "\t") },
			want:   []string{"not exactly as you proposed", "-        println(\"hi\")\n+\tprintln(\"hi\")", "final_file_content"}},
		{name: "new_long_file", files: nil,
			call: writeCall("n.txt", long),
			want: []string{"successfully saved", "400 lines, exactly the content you wrote"}, notWant: []string{"final_file_content", "@@"}},
		{name: "overwrite_long_file", files: map[string]string{"l.txt": long},
			call: writeCall("l.txt", longEdited),
			want: []string{"@@ -197,7 +197,7 @@", "-line 200\n+line two hundred"}, notWant: []string{"final_file_content"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, c.files)
			f.host.onSave = c.onSave
			f.env.Settings.FullEditResults = c.full
			var tool *Tool
			if c.call.Name == "write_to_file" {
				tool = NewWrite()
			} else {
				tool = NewReplace()
			}
			res, err := tool.Run(context.Background(), f.env, c.call)
			if err != nil || res.IsError {
				t.Fatalf("Run = %+v, %v", res, err)
			}
			for _, w := range c.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("result lacks %q", w)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(res.Text, w) {
					t.Errorf("result has %q", w)
				}
			}
			golden.File(t, filepath.Join("testdata", "results", c.name+".golden"), res.Text)
		})
	}
}

func TestNewErrorsAfterSave(t *testing.T) {
	orig := "a\nb ERR: old problem\nc\n"
	cases := []struct {
		name      string
		diff      string
		diagsFail bool
		asks      int // Diagnostics calls: before the diff opens and after the save
		want      []string
		notWant   []string
	}{
		{name: "new_error_reported", diff: block("c\n", "c\nd ERR: undefined: d\ne WARN: unused\n"),
			want: []string{"did not report before", "- Line 4 (fake): undefined: d"}, notWant: []string{"- Line 2", "- Line 5"}, asks: 2},
		{name: "moved_old_error_is_not_new", diff: block("a\n", "z\ny\na\n"),
			notWant: []string{"did not report before"}, asks: 2},
		{name: "diagnostics_unavailable", diff: block("c\n", "d ERR: boom\n"), diagsFail: true,
			want:    []string{"Problems in f.txt after this edit are not known: fake: no language server"},
			notWant: []string{"did not report before"}, asks: 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, map[string]string{"f.txt": orig})
			f.host.diagsFail = c.diagsFail
			res, err := NewReplace().Run(context.Background(), f.env, replaceCall("f.txt", c.diff))
			if err != nil || res.IsError {
				t.Fatalf("Run = %+v, %v", res, err)
			}
			for _, w := range c.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("result lacks %q:\n%s", w, res.Text)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(res.Text, w) {
					t.Errorf("result has %q:\n%s", w, res.Text)
				}
			}
			if f.host.diagAsks != c.asks {
				t.Errorf("diagnostics asked %d times, want %d", f.host.diagAsks, c.asks)
			}
			// The chat shows new problems, or that they are not known, under the edit's row.
			rows := 0
			for _, k := range f.ui.says {
				if k == msg.SayInfo {
					rows++
				}
			}
			if want := len(c.want); rows != min(want, 1) {
				t.Errorf("%d info rows under the edit, want %d", rows, min(want, 1))
			}
		})
	}
}

func TestNewErrorsTable(t *testing.T) {
	d := func(path string, line int, sev, m string) tools.Diagnostic {
		return tools.Diagnostic{Path: path, Line: line, Severity: sev, Message: m, Source: "ts"}
	}
	cases := []struct {
		name          string
		before, after []tools.Diagnostic
		want          []int // lines of the new errors
	}{
		{"none", nil, nil, nil},
		{"all new", nil, []tools.Diagnostic{d("/f", 9, "error", "x"), d("/f", 2, "error", "y")}, []int{2, 9}},
		{"moved is old", []tools.Diagnostic{d("/f", 1, "error", "x")}, []tools.Diagnostic{d("/f", 5, "error", "x")}, nil},
		{"second copy is new", []tools.Diagnostic{d("/f", 1, "error", "x")}, []tools.Diagnostic{d("/f", 1, "error", "x"), d("/f", 7, "error", "x")}, []int{7}},
		{"warnings ignored", nil, []tools.Diagnostic{d("/f", 1, "warning", "x")}, nil},
		{"other files ignored", nil, []tools.Diagnostic{d("/g", 1, "error", "x")}, nil},
		{"fixed errors are not reported", []tools.Diagnostic{d("/f", 1, "error", "x")}, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := newErrors("/f", c.before, c.after)
			var lines []int
			for _, g := range got {
				lines = append(lines, g.Line)
			}
			if fmt.Sprint(lines) != fmt.Sprint(c.want) {
				t.Fatalf("new error lines = %v, want %v", lines, c.want)
			}
		})
	}
}

func TestCountLines(t *testing.T) {
	for in, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "a\nb\n": 2, "\n": 1} {
		if got := countLines(in); got != want {
			t.Errorf("countLines(%q) = %d, want %d", in, got, want)
		}
	}
}

func TestMessagesRender(t *testing.T) {
	for key := range messages.Get() {
		out := render(key, msgData{Path: "p", Lines: 1, Diff: "d\n", Content: "c", Problems: "- x", Message: "m", Reason: "r",
			Tool: "t", Block: 2, Span: "line 3"})
		if strings.HasPrefix(out, "(") || strings.Contains(out, "<no value>") {
			t.Errorf("section %s renders badly: %q", key, out)
		}
	}
	for _, key := range []string{"saved", "saved-with-changes", "new-problems", "final-content", "changed-hunks",
		"new-file-unchanged", "replace-failed", "missing-file", "unreadable", "invalid-path", "ignored", "rejected",
		"match-trimmed", "match-anchor", "cut-off"} {
		if _, ok := messages.Get()[key]; !ok {
			t.Errorf("messages.md lacks section %q", key)
		}
	}
}

// TestReadOnlyFileAsks: the atomic rename only needs the folder's permission, so a 0444 file
// would be replaced silently. The edit is asked about with the reason (never auto-approved: the
// reason travels as a protected write); a rejection leaves the file and its mode alone, an
// approval makes it writable for its owner and saves (judged by the mode bits, so also as root).
func TestReadOnlyFileAsks(t *testing.T) {
	for _, tool := range []*Tool{NewReplace(), NewWrite()} {
		for _, approve := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s approved=%v", tool.Spec().Name, approve), func(t *testing.T) {
				f := newFixture(t, map[string]string{"main.go": small})
				f.ui.answer = tools.Answer{Approved: approve}
				if err := os.Chmod(f.path("main.go"), 0o444); err != nil {
					t.Fatal(err)
				}
				before := f.snap("main.go")
				call := replaceCall("main.go", block("\tprintln(\"hi\")\n", "\tprintln(\"bye\")\n"))
				if tool.whole {
					call = writeCall("main.go", "package other\n")
				}
				res, err := tool.Run(context.Background(), f.env, call)
				if err != nil {
					t.Fatal(err)
				}
				if len(f.ui.approvals) != 1 || !strings.Contains(f.ui.approvals[0].Protected, "read-only file (mode -r--r--r--)") {
					t.Fatalf("approvals: %+v", f.ui.approvals)
				}
				st, err := os.Stat(f.path("main.go"))
				if err != nil {
					t.Fatal(err)
				}
				if !approve {
					f.unchanged("main.go", before)
					if st.Mode().Perm() != 0o444 || !res.Rejected {
						t.Errorf("rejected: mode %v, result %+v", st.Mode().Perm(), res)
					}
					return
				}
				want := os.FileMode(0o644)
				if runtime.GOOS == "windows" {
					want = 0o666 // the read-only attribute cleared: Windows keeps no other bit
				}
				if st.Mode().Perm() != want || res.IsError || !strings.Contains(res.Text, "was read-only; the user approved making it writable (mode now "+want.String()+")") {
					t.Errorf("approved: mode %v, result %+v", st.Mode().Perm(), res)
				}
			})
		}
	}
}

// The approval's row learns how the edit ended: exactly one outcome per approved or rejected
// edit, none for an edit refused before it was shown.
func TestOutcomeRecorded(t *testing.T) {
	cases := []struct {
		name     string
		approved bool
		onSave   func(f *fixture) func(string) string
		wantErr  bool
		want     []msg.Outcome
	}{
		{name: "saved", approved: true, want: []msg.Outcome{msg.OutcomeSaved}},
		{name: "user changed the proposal", approved: true,
			onSave: func(*fixture) func(string) string {
				return func(s string) string { return strings.Replace(s, "hello", "hello, user", 1) }
			},
			want: []msg.Outcome{msg.OutcomeSavedWithChanges}},
		{name: "rejected", want: []msg.Outcome{msg.OutcomeRejected}},
		{name: "save failed", approved: true, wantErr: true,
			onSave: func(f *fixture) func(string) string {
				return func(s string) string {
					if err := os.RemoveAll(f.path("pkg")); err != nil {
						t.Error(err)
					}
					return s
				}
			},
			want: []msg.Outcome{msg.OutcomeFailed}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, map[string]string{"pkg/main.go": small})
			f.ui.answer = tools.Answer{Approved: c.approved}
			if c.onSave != nil {
				f.host.onSave = c.onSave(f)
			}
			_, err := NewReplace().Run(context.Background(), f.env, replaceCall("pkg/main.go", block("\tprintln(\"hi\")\n", "\tprintln(\"hello\")\n")))
			if (err != nil) != c.wantErr {
				t.Fatalf("Run error = %v, want error %v", err, c.wantErr)
			}
			if !slices.Equal(f.ui.outcomes, c.want) {
				t.Fatalf("outcomes = %v, want %v", f.ui.outcomes, c.want)
			}
		})
	}
	t.Run("refused before approval", func(t *testing.T) {
		f := newFixture(t, map[string]string{"main.go": small})
		res, err := NewReplace().Run(context.Background(), f.env, replaceCall("main.go", block("absent\n", "x\n")))
		if err != nil || !res.IsError || len(f.ui.outcomes) != 0 {
			t.Fatalf("Run = %+v, %v; outcomes %v", res, err, f.ui.outcomes)
		}
	})
}

// TestSavedWithChangesShowsWhatWasSaved: when the user (or a formatter) changed the proposal
// before it was saved, the chat gets a row with what changed between the proposal and the saved
// file; a proposal saved as it was gets none.
func TestSavedWithChangesShowsWhatWasSaved(t *testing.T) {
	for _, changed := range []bool{false, true} {
		f := newFixture(t, map[string]string{"pkg/main.go": small})
		f.ui.answer = tools.Answer{Approved: true}
		if changed {
			f.host.onSave = func(s string) string { return strings.Replace(s, "hello", "hello, user", 1) }
		}
		if _, err := NewReplace().Run(context.Background(), f.env, replaceCall("pkg/main.go", block("\tprintln(\"hi\")\n", "\tprintln(\"hello\")\n"))); err != nil {
			t.Fatal(err)
		}
		var rows []*msg.Tool
		for i, k := range f.ui.says {
			if k == msg.SayUserFeedbackDiff {
				p, ok := f.ui.payloads[i].(*msg.Tool)
				if !ok {
					t.Fatalf("the saved-changes row carries %T, want *msg.Tool", f.ui.payloads[i])
				}
				rows = append(rows, p)
			}
		}
		if !changed {
			if len(rows) != 0 {
				t.Fatalf("a proposal saved unchanged got %d saved-changes rows", len(rows))
			}
			continue
		}
		if len(rows) != 1 {
			t.Fatalf("saved with changes: %d saved-changes rows, want 1", len(rows))
		}
		d := rows[0]
		if d.Path != "pkg/main.go" || !strings.Contains(d.Diff, "-\tprintln(\"hello\")") || !strings.Contains(d.Diff, "+\tprintln(\"hello, user\")") {
			t.Fatalf("saved-changes row = path %q, diff:\n%s", d.Path, d.Diff)
		}
	}
}

// TestEveryToolHasItsDescription: write_to_file and replace_in_file take their descriptions
// from the sections of descriptions.md named after them.
func TestEveryToolHasItsDescription(t *testing.T) {
	for _, tool := range []*Tool{NewWrite(), NewReplace()} {
		s := tool.Spec()
		if _, ok := descriptions.Sections()[s.Name]; !ok || s.Description == "" || strings.HasPrefix(s.Description, "missing message") {
			t.Errorf("%s: description %q", s.Name, s.Description)
		}
	}
	if len(descriptions.Sections()) != 2 {
		t.Errorf("descriptions.md has %d sections, want 2", len(descriptions.Sections()))
	}
}
