package acp_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/server/acp"
	"github.com/cairnhq/cairn/server/servertest"
)

// The mapping, tested as an editor sees it: the SDK's client side on in-memory pipes, talking
// to acp.Serve, which drives a real in-process daemon playing a scripted model.

const complete = "<attempt_completion>\n<result>All done.</result>\n</attempt_completion>"

func writeFile(path, content string) string {
	return "Writing it.\n<write_to_file>\n<path>" + path + "</path>\n<content>\n" + content + "</content>\n</write_to_file>"
}

func replaceIn(path, search, replace string) string {
	return "Changing it.\n<replace_in_file>\n<path>" + path + "</path>\n<diff>\n------- SEARCH\n" + search +
		"=======\n" + replace + "+++++++ REPLACE\n</diff>\n</replace_in_file>"
}

// editor is the client: it records the updates and answers permission requests with choose.
type editor struct {
	mu      sync.Mutex
	updates []sdk.SessionUpdate
	asks    []sdk.RequestPermissionRequest
	choose  string
	changed chan struct{}
}

func (c *editor) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n.Update)
	c.mu.Unlock()
	select {
	case c.changed <- struct{}{}:
	default:
	}
	return nil
}

func (c *editor) RequestPermission(_ context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asks = append(c.asks, p)
	choose := c.choose
	c.mu.Unlock()
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
		Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(choose)}}}, nil
}

var errNotOffered = errors.New("not offered by this client")

func (c *editor) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errNotOffered
}

func (c *editor) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errNotOffered
}

func (c *editor) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errNotOffered
}

func (c *editor) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errNotOffered
}

func (c *editor) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errNotOffered
}

func (c *editor) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errNotOffered
}

func (c *editor) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errNotOffered
}

// snapshot returns the updates and permission requests so far.
func (c *editor) snapshot() ([]sdk.SessionUpdate, []sdk.RequestPermissionRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]sdk.SessionUpdate(nil), c.updates...), append([]sdk.RequestPermissionRequest(nil), c.asks...)
}

// messages is the text of the agent_message_chunk (or, with thought, agent_thought_chunk)
// updates, joined.
func (c *editor) messages(thought bool) string {
	ups, _ := c.snapshot()
	var b strings.Builder
	for _, u := range ups {
		if !thought && u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
		if thought && u.AgentThoughtChunk != nil && u.AgentThoughtChunk.Content.Text != nil {
			b.WriteString(u.AgentThoughtChunk.Content.Text.Text)
		}
	}
	return b.String()
}

type harness struct {
	e    *servertest.Env
	conn *sdk.ClientSideConnection
	ed   *editor
	sid  sdk.SessionId
	// close ends the connection and waits for the agent to be done with it.
	close func()
}

// start runs a daemon playing script, the agent on pipes, and a client with an open session.
func start(t *testing.T, script llmtest.Script, choose string) *harness {
	t.Helper()
	h := connect(t, servertest.Start(t, script, servertest.Options{}), choose)
	s, err := h.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: h.e.Workspace, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Modes == nil || s.Modes.CurrentModeId != "act" || len(s.Modes.AvailableModes) != 3 || s.Modes.AvailableModes[2].Id != "orchestrator" {
		t.Fatalf("modes = %+v", s.Modes)
	}
	h.sid = s.SessionId
	return h
}

// connect runs the agent on pipes against e's daemon and initializes a client.
func connect(t *testing.T, e *servertest.Env, choose string) *harness {
	t.Helper()
	ed := &editor{choose: choose, changed: make(chan struct{}, 1)}
	return connectAs(t, e, ed, ed, sdk.ClientCapabilities{}, nil)
}

// connectAs is connect with a client of its own offering caps, and own as the overrides of
// every task (nil: none); ed records what it is sent.
func connectAs(t *testing.T, e *servertest.Env, ed *editor, client sdk.Client, caps sdk.ClientCapabilities, own *cairnv1.TaskOverrides) *harness {
	t.Helper()
	agentIn, clientOut := io.Pipe()
	clientIn, agentOut := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- acp.Serve(ctx, acp.Options{Clients: acp.Clients{Tasks: e.Tasks, UI: e.UI, State: e.State, Files: e.Files,
			Bridge: e.Bridge}, Overrides: own}, agentIn, agentOut)
	}()
	conn := sdk.NewClientSideConnection(client, clientOut, clientIn)
	var once sync.Once
	closeIt := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
			for _, c := range []io.Closer{agentIn, clientOut, clientIn, agentOut} {
				if err := c.Close(); err != nil {
					t.Error(err)
				}
			}
		})
	}
	t.Cleanup(closeIt)
	init, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: caps})
	if err != nil {
		t.Fatal(err)
	}
	if init.ProtocolVersion != 1 || !init.AgentCapabilities.PromptCapabilities.EmbeddedContext || !init.AgentCapabilities.LoadSession {
		t.Fatalf("initialize = %+v", init)
	}
	return &harness{e: e, conn: conn, ed: ed, close: closeIt}
}

func (h *harness) prompt(t *testing.T, blocks ...sdk.ContentBlock) sdk.StopReason {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := h.conn.Prompt(ctx, sdk.PromptRequest{SessionId: h.sid, Prompt: blocks})
	if err != nil {
		t.Fatal(err)
	}
	return r.StopReason
}

func (h *harness) llmOK(t *testing.T) {
	t.Helper()
	if err := h.e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
}

// A prompt with text, a resource link and an embedded resource starts the task; reasoning
// and text stream as thought and message chunks; a command shows as an execute tool call with
// its output; a follow-up question ends the turn and the next prompt answers it; the
// completion ends the turn with end_turn.
func TestPromptStreamsAndEndsTurns(t *testing.T) {
	h := start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Reasoning: "Let me think about notes.", Text: "Looking around.\n<execute_command>\n<command>echo hello-from-shell</command>\n<requires_approval>false</requires_approval>\n<task_progress>\n- [x] look around\n- [ ] summarize\n</task_progress>\n</execute_command>",
			ChunkSize: 8, Expect: &llmtest.Expect{LastUserContains: []string{"summarize the notes", "embedded body 42"}}},
		{Text: "<ask_followup_question>\n<question>Which section?</question>\n</ask_followup_question>",
			Expect: &llmtest.Expect{LastUserContains: []string{"hello-from-shell"}}},
		{Text: "Summing up.\n" + complete, Expect: &llmtest.Expect{LastUserContains: []string{"the second one"}}},
	}}, "allow_once")
	notes := filepath.Join(h.e.Workspace, "notes.md")
	if err := os.WriteFile(notes, []byte("# Notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := h.prompt(t, sdk.TextBlock("summarize the notes"), sdk.ResourceLinkBlock("notes.md", "file://"+notes),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{
			Uri: "file://" + filepath.Join(h.e.Workspace, "draft.md"), Text: "embedded body 42"}}))
	if r != sdk.StopReasonEndTurn {
		t.Fatalf("first turn ended with %q", r)
	}
	if got := h.ed.messages(true); got != "Let me think about notes." {
		t.Errorf("thoughts = %q", got)
	}
	if got := h.ed.messages(false); !strings.Contains(got, "Looking around.") || !strings.Contains(got, "Which section?") {
		t.Errorf("messages = %q", got)
	}
	ups, asks := h.ed.snapshot()
	if len(asks) != 0 {
		t.Errorf("a safe command was asked about: %+v", asks)
	}
	var call *sdk.SessionUpdateToolCall
	var output string
	var finished bool
	for _, u := range ups {
		if u.ToolCall != nil && u.ToolCall.Kind == sdk.ToolKindExecute {
			call = u.ToolCall
		}
		if u.ToolCallUpdate != nil && call != nil && u.ToolCallUpdate.ToolCallId == call.ToolCallId {
			for _, c := range u.ToolCallUpdate.Content {
				if c.Content != nil && c.Content.Content.Text != nil {
					output = c.Content.Content.Text.Text
				}
			}
			if u.ToolCallUpdate.Status != nil && *u.ToolCallUpdate.Status == sdk.ToolCallStatusCompleted {
				finished = true
			}
		}
	}
	var plan *sdk.SessionUpdatePlan
	for _, u := range ups {
		if u.Plan != nil {
			plan = u.Plan
		}
	}
	var cmds []sdk.AvailableCommand
	for _, u := range ups {
		if u.AvailableCommandsUpdate != nil {
			cmds = u.AvailableCommandsUpdate.AvailableCommands
		}
	}
	names := map[string]bool{}
	for _, c := range cmds {
		names[c.Name] = true
	}
	if !names["newtask"] {
		t.Errorf("available commands = %+v", cmds)
	}
	if plan == nil || len(plan.Entries) != 2 || plan.Entries[0].Content != "look around" ||
		plan.Entries[0].Status != sdk.PlanEntryStatusCompleted || plan.Entries[1].Status != sdk.PlanEntryStatusInProgress {
		t.Errorf("plan = %+v", plan)
	}
	if call == nil || !strings.Contains(call.Title, "echo hello-from-shell") {
		t.Fatalf("no execute tool call in %+v", ups)
	}
	if !strings.Contains(output, "hello-from-shell") || !finished {
		t.Errorf("command output %q, completed %v", output, finished)
	}
	if r := h.prompt(t, sdk.TextBlock("the second one")); r != sdk.StopReasonEndTurn {
		t.Fatalf("second turn ended with %q", r)
	}
	if got := h.ed.messages(false); !strings.Contains(got, "All done.") {
		t.Errorf("the completion is not in the messages: %q", got)
	}
	h.llmOK(t)
}

// An edit that is not auto-approved becomes an edit tool call with its diff and a permission
// request; "allow always" lets the session's next edit through without asking, as the task's
// own policy: the shared settings do not change.
func TestAllowAlwaysIsTheTasksOwnPolicy(t *testing.T) {
	h := start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: replaceIn("a.txt", "two\n", "TWO\n")},
		{Text: writeFile("b.txt", "new file\n"), Expect: &llmtest.Expect{LastUserContains: []string{"[replace_in_file for 'a.txt'] Result:"}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'b.txt'] Result:"}}},
	}}, "allow_always")
	a := filepath.Join(h.e.Workspace, "a.txt")
	if err := os.WriteFile(a, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := h.prompt(t, sdk.TextBlock("shout two, then add b")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn ended with %q", r)
	}
	ups, asks := h.ed.snapshot()
	if len(asks) != 1 {
		t.Fatalf("%d permission requests, want 1 (the second edit is allowed always): %+v", len(asks), asks)
	}
	opts := map[sdk.PermissionOptionKind]bool{}
	for _, o := range asks[0].Options {
		opts[o.Kind] = true
	}
	if len(opts) != 4 || asks[0].ToolCall.Kind == nil || *asks[0].ToolCall.Kind != sdk.ToolKindEdit {
		t.Errorf("permission request = %+v", asks[0])
	}
	var diff *sdk.ToolCallContentDiff
	for _, u := range ups {
		if u.ToolCall != nil && u.ToolCall.ToolCallId == asks[0].ToolCall.ToolCallId {
			if u.ToolCall.Kind != sdk.ToolKindEdit || len(u.ToolCall.Locations) != 1 || u.ToolCall.Locations[0].Path != a {
				t.Errorf("edit tool call = %+v", u.ToolCall)
			}
			for _, c := range u.ToolCall.Content {
				if c.Diff != nil {
					diff = c.Diff
				}
			}
		}
	}
	if diff == nil || diff.Path != a || diff.OldText == nil || !strings.Contains(*diff.OldText, "two") ||
		!strings.Contains(diff.NewText, "TWO") || strings.Contains(diff.NewText, "\ntwo") {
		t.Fatalf("diff content = %+v", diff)
	}
	if b, err := os.ReadFile(a); err != nil || string(b) != "one\nTWO\nthree\n" {
		t.Errorf("a.txt = %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(h.e.Workspace, "b.txt")); err != nil || string(b) != "new file\n" {
		t.Errorf("b.txt = %q, %v", b, err)
	}
	st, err := h.e.State.GetState(context.Background(), &cairnv1.GetStateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if st.GetSettings().GetAutoApprove().GetEditFiles() {
		t.Error("allow always changed the shared settings")
	}
	h.llmOK(t)
}

// "Reject always" rejects the session's next action of the same kind without asking.
func TestRejectAlways(t *testing.T) {
	h := start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("x.txt", "x\n")},
		{Text: writeFile("y.txt", "y\n"), Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'x.txt'] Result:"}}},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'y.txt'] Result:", "rest of the session"}}},
	}}, "reject_always")
	if r := h.prompt(t, sdk.TextBlock("make two files")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn ended with %q", r)
	}
	ups, asks := h.ed.snapshot()
	if len(asks) != 1 {
		t.Fatalf("%d permission requests, want 1", len(asks))
	}
	failed := 0
	for _, u := range ups {
		if u.ToolCallUpdate != nil && u.ToolCallUpdate.Status != nil && *u.ToolCallUpdate.Status == sdk.ToolCallStatusFailed {
			failed++
		}
	}
	if failed != 2 {
		t.Errorf("%d tool calls failed, want both edits", failed)
	}
	for _, f := range []string{"x.txt", "y.txt"} {
		if _, err := os.Stat(filepath.Join(h.e.Workspace, f)); !os.IsNotExist(err) {
			t.Errorf("%s was written after a rejection: %v", f, err)
		}
	}
	h.llmOK(t)
}

// A turn whose only words are the completion's, or an error's, shows them as they are: no
// message the agent sends starts with blank lines.
func TestMessagesDoNotStartWithBlankLines(t *testing.T) {
	h := start(t, llmtest.Script{Turns: []llmtest.Turn{{Text: complete}}}, "allow_once")
	if r := h.prompt(t, sdk.TextBlock("finish")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn ended with %q", r)
	}
	if got := h.ed.messages(false); got != "All done." {
		t.Errorf("agent message = %q, want %q", got, "All done.")
	}
	h.llmOK(t)
}

// session/cancel answers the running prompt with cancelled within a second, and the task
// stops; the next prompt resumes it.
func TestCancel(t *testing.T) {
	h := start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: strings.Repeat("slowly ", 400), ChunkSize: 7, Delay: llmtest.Duration(50 * time.Millisecond)},
		{Text: complete, Expect: &llmtest.Expect{LastUserContains: []string{"go on"}}},
	}}, "allow_once")
	got := make(chan sdk.StopReason, 1)
	go func() {
		r, err := h.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: h.sid, Prompt: []sdk.ContentBlock{sdk.TextBlock("talk slowly")}})
		if err != nil {
			t.Error(err)
		}
		got <- r.StopReason
	}()
	deadline := time.After(20 * time.Second)
	for !strings.Contains(h.ed.messages(false), "slowly") {
		select {
		case <-h.ed.changed:
		case <-deadline:
			t.Fatal("no message chunk arrived")
		}
	}
	t0 := time.Now()
	if err := h.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: h.sid}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-got:
		if r != sdk.StopReasonCancelled {
			t.Fatalf("cancelled prompt ended with %q", r)
		}
		if d := time.Since(t0); d > time.Second {
			t.Errorf("the prompt answered %v after the cancel", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the prompt did not answer after the cancel")
	}
	if r := h.prompt(t, sdk.TextBlock("go on")); r != sdk.StopReasonEndTurn {
		t.Fatalf("the prompt after the cancel ended with %q", r)
	}
	h.llmOK(t)
}

// session/set_mode switches to PLAN (the client hears current_mode_update); there an edit is
// refused by the task as in VS Code, and plan_mode_respond ends the turn.
func TestPlanModeRefusesEdits(t *testing.T) {
	h := start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: writeFile("x.txt", "x\n")},
		{Text: "<plan_mode_respond>\n<response>Here is the plan.</response>\n</plan_mode_respond>",
			Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'x.txt'] Result:", "PLAN MODE"}}},
	}}, "allow_once")
	if _, err := h.conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: h.sid, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	if r := h.prompt(t, sdk.TextBlock("plan a file")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn ended with %q", r)
	}
	ups, asks := h.ed.snapshot()
	if len(asks) != 0 {
		t.Errorf("PLAN mode asked to edit: %+v", asks)
	}
	mode := false
	for _, u := range ups {
		if u.CurrentModeUpdate != nil && u.CurrentModeUpdate.CurrentModeId == "plan" {
			mode = true
		}
	}
	if !mode {
		t.Error("no current_mode_update")
	}
	if !strings.Contains(h.ed.messages(false), "Here is the plan.") {
		t.Errorf("the plan is not in the messages: %q", h.ed.messages(false))
	}
	if _, err := os.Stat(filepath.Join(h.e.Workspace, "x.txt")); !os.IsNotExist(err) {
		t.Errorf("x.txt exists after PLAN mode: %v", err)
	}
	h.llmOK(t)
}

// The workspace's own modes are session modes: session/new lists them, and set_mode puts the
// task in one, whose system prompt then names it.
func TestSessionModesIncludeTheWorkspaceModes(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, ".cairn", "modes"), 0o755); err != nil {
		t.Fatal(err)
	}
	doc := "---\nname: Docs Writer\ndescription: Writes the docs.\ngroups: [read, edit]\nfileRegex: \\.md$\n---\nBe brief.\n"
	if err := os.WriteFile(filepath.Join(ws, ".cairn", "modes", "docs.md"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>",
			Expect: &llmtest.Expect{Contains: []string{"You are in the Docs Writer mode (docs).", "Be brief."}}},
	}}, servertest.Options{Workspace: ws})
	h := connect(t, e, "allow_once")
	s, err := h.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.Workspace, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	h.sid = s.SessionId
	var ids []string
	for _, m := range s.Modes.AvailableModes {
		ids = append(ids, string(m.Id))
	}
	if strings.Join(ids, ",") != "act,plan,orchestrator,docs" {
		t.Fatalf("available modes: %v", ids)
	}
	if _, err := h.conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: h.sid, ModeId: "nope"}); err == nil {
		t.Fatal("set_mode accepted a mode the session does not offer")
	}
	if _, err := h.conn.SetSessionMode(context.Background(), sdk.SetSessionModeRequest{SessionId: h.sid, ModeId: "docs"}); err != nil {
		t.Fatal(err)
	}
	if r := h.prompt(t, sdk.TextBlock("write the docs")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn ended with %q", r)
	}
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
}

// session/load from a second connection, after the first one ended, finds the session's task,
// replays the conversation (the user's prompt as a user chunk, the answer as agent chunks)
// before it answers, and the next prompt goes on with the task.
func TestLoadReplaysAndContinues(t *testing.T) {
	h := start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "First answer.\n" + complete},
		{Text: "<attempt_completion>\n<result>Second round done.</result>\n</attempt_completion>",
			Expect: &llmtest.Expect{LastUserContains: []string{"and one more thing"}}},
	}}, "allow_once")
	if r := h.prompt(t, sdk.TextBlock("the original request")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn ended with %q", r)
	}
	h.close()

	h2 := connect(t, h.e, "allow_once")
	loaded, err := h2.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: h.sid, Cwd: h.e.Workspace,
		McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	// The model picker is offered again.
	if len(loaded.ConfigOptions) != 2 || loaded.ConfigOptions[0].Select == nil || loaded.ConfigOptions[0].Select.Id != "model" ||
		loaded.ConfigOptions[0].Select.CurrentValue == "" {
		t.Errorf("session/load config options = %+v, want the model", loaded.ConfigOptions)
	}
	ups, _ := h2.ed.snapshot()
	var user strings.Builder
	for _, u := range ups {
		if u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil {
			user.WriteString(u.UserMessageChunk.Content.Text.Text)
		}
	}
	if !strings.Contains(user.String(), "the original request") {
		t.Errorf("replayed user text = %q", user.String())
	}
	if got := h2.ed.messages(false); !strings.Contains(got, "First answer.") || !strings.Contains(got, "All done.") {
		t.Errorf("replayed agent text = %q", got)
	}
	h2.sid = h.sid
	if r := h2.prompt(t, sdk.TextBlock("and one more thing")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn after load ended with %q", r)
	}
	if got := h2.ed.messages(false); !strings.Contains(got, "Second round done.") {
		t.Errorf("agent text after load = %q", got)
	}
	h.llmOK(t)
}
