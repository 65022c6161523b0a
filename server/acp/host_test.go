package acp_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/server/servertest"
)

// bufferEditor is a client that offers fs and terminal: its open buffers hold text the disk
// does not, its writes land in those buffers, and its terminal runs commands for real.
type bufferEditor struct {
	*editor
	refuse bool

	fmu     sync.Mutex
	buffers map[string]string
	writes  map[string]string
	reads   []string
	terms   map[string]*clientTerminal
	created []string
	// started receives each terminal as it is created.
	started chan *clientTerminal
}

type clientTerminal struct {
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	out  bytes.Buffer
	code int
}

func (w *clientTerminal) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.out.Write(p)
}

func newBufferEditor(choose string, buffers map[string]string) *bufferEditor {
	return &bufferEditor{editor: &editor{choose: choose, changed: make(chan struct{}, 1)}, buffers: buffers,
		writes: map[string]string{}, terms: map[string]*clientTerminal{}, started: make(chan *clientTerminal, 8)}
}

var errRefused = errors.New("the buffer is read-only")

func (c *bufferEditor) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.fmu.Lock()
	defer c.fmu.Unlock()
	c.reads = append(c.reads, p.Path)
	if t, ok := c.buffers[p.Path]; ok {
		return sdk.ReadTextFileResponse{Content: t}, nil
	}
	b, err := os.ReadFile(p.Path)
	return sdk.ReadTextFileResponse{Content: string(b)}, err
}

func (c *bufferEditor) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.fmu.Lock()
	defer c.fmu.Unlock()
	if c.refuse {
		return sdk.WriteTextFileResponse{}, errRefused
	}
	c.writes[p.Path] = p.Content
	c.buffers[p.Path] = p.Content
	return sdk.WriteTextFileResponse{}, nil
}

func (c *bufferEditor) CreateTerminal(_ context.Context, p sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	cmd := exec.Command(p.Command, p.Args...)
	if p.Cwd != nil {
		cmd.Dir = *p.Cwd
	}
	// A killed shell's child may hold the output open; the terminal stops reading soon after.
	cmd.WaitDelay = 500 * time.Millisecond
	term := &clientTerminal{cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = term, term
	if err := cmd.Start(); err != nil {
		return sdk.CreateTerminalResponse{}, err
	}
	go func() {
		err := cmd.Wait()
		term.mu.Lock()
		term.code = cmd.ProcessState.ExitCode()
		if err != nil && term.code == 0 {
			term.code = -1
		}
		term.mu.Unlock()
		close(term.done)
	}()
	c.fmu.Lock()
	defer c.fmu.Unlock()
	id := "term-" + string(rune('a'+len(c.created)))
	c.terms[id] = term
	c.created = append(c.created, strings.Join(append([]string{p.Command}, p.Args...), " "))
	c.started <- term
	return sdk.CreateTerminalResponse{TerminalId: id}, nil
}

func (c *bufferEditor) terminal(id string) (*clientTerminal, error) {
	c.fmu.Lock()
	defer c.fmu.Unlock()
	t := c.terms[id]
	if t == nil {
		return nil, errors.New("no terminal " + id)
	}
	return t, nil
}

func (c *bufferEditor) TerminalOutput(_ context.Context, p sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	t, err := c.terminal(p.TerminalId)
	if err != nil {
		return sdk.TerminalOutputResponse{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return sdk.TerminalOutputResponse{Output: t.out.String()}, nil
}

func (c *bufferEditor) WaitForTerminalExit(ctx context.Context, p sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	t, err := c.terminal(p.TerminalId)
	if err != nil {
		return sdk.WaitForTerminalExitResponse{}, err
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		return sdk.WaitForTerminalExitResponse{}, ctx.Err()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return sdk.WaitForTerminalExitResponse{ExitCode: sdk.Ptr(t.code)}, nil
}

func (c *bufferEditor) KillTerminal(_ context.Context, p sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	t, err := c.terminal(p.TerminalId)
	if err != nil {
		return sdk.KillTerminalResponse{}, err
	}
	return sdk.KillTerminalResponse{}, t.cmd.Process.Kill()
}

func (c *bufferEditor) ReleaseTerminal(_ context.Context, p sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	c.fmu.Lock()
	defer c.fmu.Unlock()
	delete(c.terms, p.TerminalId)
	return sdk.ReleaseTerminalResponse{}, nil
}

var allCaps = sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true}

// startBuffers is start with a client that offers files and a terminal.
func startBuffers(t *testing.T, script llmtest.Script, ed *bufferEditor) *harness {
	t.Helper()
	h := connectAs(t, servertest.Start(t, script, servertest.Options{}), ed.editor, ed, allCaps, nil)
	s, err := h.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: h.e.Workspace, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	h.sid = s.SessionId
	return h
}

// With a client that offers fs, read_file sees the editor's unsaved buffer, not the disk; an
// edit starts from that buffer and lands in it through fs/write_text_file; the disk is left
// to the editor.
func TestReadsAndEditsGoThroughTheClient(t *testing.T) {
	ed := newBufferEditor("allow_once", map[string]string{})
	h := startBuffers(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<read_file>\n<path>notes.md</path>\n</read_file>"},
		{Text: replaceIn("notes.md", "unsaved line\n", "edited line\n"),
			Expect: &llmtest.Expect{LastUserContains: []string{"unsaved line"}, LastUserNotContains: []string{"disk line"}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"[replace_in_file for 'notes.md'] Result:"},
			LastUserNotContains: []string{"Error"}}},
	}}, ed)
	notes := filepath.Join(h.e.Workspace, "notes.md")
	if err := os.WriteFile(notes, []byte("# Notes\ndisk line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ed.fmu.Lock()
	ed.buffers[notes] = "# Notes\nunsaved line\n"
	ed.fmu.Unlock()
	if r := h.prompt(t, sdk.TextBlock("edit the notes")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn ended with %q", r)
	}
	ed.fmu.Lock()
	got, reads := ed.writes[notes], append([]string(nil), ed.reads...)
	ed.fmu.Unlock()
	if got != "# Notes\nedited line\n" {
		t.Errorf("written through the client: %q", got)
	}
	if len(reads) < 2 || reads[0] != notes {
		t.Errorf("reads through the client = %v, want notes.md by read_file and by the edit", reads)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "# Notes\ndisk line\n" {
		t.Errorf("the disk changed: %q, %v", b, err)
	}
	h.llmOK(t)
}

// A write the client refuses fails the edit with the client's reason, told to the model and
// shown to the user; the file stays as it was.
func TestRefusedWriteLeavesTheFile(t *testing.T) {
	ed := newBufferEditor("allow_once", map[string]string{})
	ed.refuse = true
	h := startBuffers(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: replaceIn("a.txt", "two\n", "TWO\n")},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"did not save", "read-only"}}},
	}}, ed)
	a := filepath.Join(h.e.Workspace, "a.txt")
	if err := os.WriteFile(a, []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := h.prompt(t, sdk.TextBlock("shout two")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn ended with %q", r)
	}
	if b, err := os.ReadFile(a); err != nil || string(b) != "one\ntwo\n" {
		t.Errorf("a.txt = %q, %v", b, err)
	}
	if m := h.ed.messages(false); !strings.Contains(m, "Error") || !strings.Contains(m, "did not save") {
		t.Errorf("the user was not told: %q", m)
	}
	h.llmOK(t)
}

// With a client that offers a terminal, a command runs there (terminal/create with the
// command line, its output read back and released), its output reaches the model, and its
// tool call shows the client's terminal (terminal content) rather than a copy of the output.
func TestCommandsRunInTheClientTerminal(t *testing.T) {
	ed := newBufferEditor("allow_once", map[string]string{})
	h := startBuffers(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<execute_command>\n<command>echo from-the-client; echo second-line</command>\n<requires_approval>false</requires_approval>\n</execute_command>"},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"from-the-client", "second-line"}}},
	}}, ed)
	if r := h.prompt(t, sdk.TextBlock("say something")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn ended with %q", r)
	}
	ed.fmu.Lock()
	created, left := append([]string(nil), ed.created...), len(ed.terms)
	ed.fmu.Unlock()
	if len(created) != 1 || !strings.Contains(created[0], "echo from-the-client; echo second-line") {
		t.Errorf("terminals created = %q", created)
	}
	if left != 0 {
		t.Errorf("%d terminals were not released", left)
	}
	ups, _ := h.ed.snapshot()
	var call sdk.ToolCallId
	terminal, text := "", ""
	for _, u := range ups {
		if u.ToolCall != nil && u.ToolCall.Kind == sdk.ToolKindExecute {
			call = u.ToolCall.ToolCallId
		}
		if u.ToolCallUpdate != nil && u.ToolCallUpdate.ToolCallId == call {
			for _, c := range u.ToolCallUpdate.Content {
				if c.Terminal != nil {
					terminal = c.Terminal.TerminalId
				}
				if c.Content != nil && c.Content.Content.Text != nil {
					text = c.Content.Content.Text.Text
				}
			}
		}
	}
	if call == "" || terminal != "term-a" || text != "" {
		t.Errorf("command tool call %q: terminal %q, text %q; want the client's terminal term-a and no copy", call, terminal, text)
	}
	h.llmOK(t)
}

// session/cancel while a command runs in the client's terminal kills it there (terminal/kill)
// and the prompt answers cancelled; the next prompt resumes the task, and the model is told
// that the command had started and what it printed.
func TestCancelKillsTheClientTerminal(t *testing.T) {
	ed := newBufferEditor("allow_once", map[string]string{})
	h := startBuffers(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<execute_command>\n<command>echo started-in-the-terminal; sleep 30</command>\n<requires_approval>false</requires_approval>\n</execute_command>"},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"go on", "had started", "echo started-in-the-terminal; sleep 30",
			"started-in-the-terminal\n"}}},
	}}, ed)
	got := make(chan sdk.StopReason, 1)
	go func() {
		r, err := h.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: h.sid, Prompt: []sdk.ContentBlock{sdk.TextBlock("wait a while")}})
		if err != nil {
			t.Error(err)
		}
		got <- r.StopReason
	}()
	term := <-ed.started
	for !strings.Contains(ed.output(term), "started-in-the-terminal") {
		time.Sleep(10 * time.Millisecond)
	}
	// The command's output has reached the task (the client's terminal is read every 150 ms).
	time.Sleep(400 * time.Millisecond)
	if err := h.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: h.sid}); err != nil {
		t.Fatal(err)
	}
	if r := <-got; r != sdk.StopReasonCancelled {
		t.Fatalf("prompt ended with %q", r)
	}
	<-term.done // killed: sleep 30 would still be running
	term.mu.Lock()
	code := term.code
	term.mu.Unlock()
	if code == 0 {
		t.Errorf("the command exited normally after the cancel")
	}
	if r := h.prompt(t, sdk.TextBlock("go on")); r != sdk.StopReasonEndTurn {
		t.Fatalf("the prompt after the cancel ended with %q", r)
	}
	h.llmOK(t)
}

// output is what a terminal's command printed so far.
func (c *bufferEditor) output(t *clientTerminal) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.String()
}
