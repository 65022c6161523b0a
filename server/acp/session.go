package acp

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/protobuf/proto"

	"github.com/cairnhq/cairn/server/follow"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// cancelWait bounds how long a cancelled prompt waits for the task to confirm; the protocol
// wants the prompt answered promptly (README "Use Cairn in Zed, JetBrains, Neovim").
const cancelWait = 700 * time.Millisecond

// session is one ACP session: its workspace roots and mode, and once the first prompt came,
// its task and the goroutine that follows the task's subscription.
type session struct {
	a     *Agent
	id    sdk.SessionId
	roots []string

	mu     sync.Mutex
	mode   string // the mode's slug ("": act)
	taskID string
	// open is the ask that ended the last turn; the next prompt answers it.
	open *cairnv1.Message
	// waiter receives the reason the running turn ended; nil between turns.
	waiter chan sdk.StopReason
	// rejected are the kinds of action the user rejected "always" (approvalKey).
	rejected map[string]bool
	// allowed are the MCP servers whose resources the user allowed "always" (scope.key): the
	// session answers their asks without asking the client.
	allowed map[string]bool
	// announced is set once the slash commands were sent (available_commands_update).
	announced bool
	// model is the session's model ("" when unknown) and modelList the models it offers.
	model     string
	modelList []string
	// modelChosen is set once the client chose the model: the task's own model from then on.
	modelChosen bool
	// mcpJSON is the client's MCP servers for the session's task (mcpServersJSON).
	mcpJSON string
	// doneWhen is the session's "done when" command (README, "Done when"); doneWhenSet
	// says the client chose it (otherwise the agent's --until holds).
	doneWhen    string
	doneWhenSet bool
	// host is the session's own host (the client's files and terminal); nil: the daemon's.
	host *bridge
	// stopSub ends the subscription.
	stopSub context.CancelFunc
	subDone chan struct{}
	// calls and terms pair the session's commands with the client's terminals that run them:
	// a command's tool call (from the task's events) and its terminal/create (from the host's
	// requests) come on two streams, in either order. Each holds what waits for its pair.
	calls []waiting
	terms []waiting
	// embedded are the tool calls whose terminal they show, by terminal id.
	embedded map[sdk.ToolCallId]string

	// sendMu orders what goes to the client, so that every update of a turn goes before the
	// turn's answer (README "Use Cairn in Zed, JetBrains, Neovim"); it guards the fields below.
	sendMu sync.Mutex
	// said is the end of the agent's message text the client has, "" once something else was
	// sent: a note that follows text is set apart from it, one that starts a message is not.
	said string
	// running are the tool calls sent as pending or in progress and not finished since.
	running map[sdk.ToolCallId]bool
	// closed are the tool calls a cancelled turn finished before answering: what the task
	// says of them later would come after the turn's answer, and is not sent.
	closed map[sdk.ToolCallId]bool
}

// maxWaiting bounds the tool calls waiting for a terminal.
const maxWaiting = 16

// waiting is a command's tool call or terminal waiting for its pair: id is the tool call's
// or the terminal's, line the user's command line.
type waiting struct{ id, line string }

func newSession(a *Agent, id sdk.SessionId, roots []string) *session {
	return &session{a: a, id: id, roots: roots, mode: modeAct, rejected: map[string]bool{}, allowed: map[string]bool{},
		embedded: map[sdk.ToolCallId]string{}, running: map[sdk.ToolCallId]bool{}, closed: map[sdk.ToolCallId]bool{}}
}

// prompt starts the task or continues it with in, and waits until the turn ends.
func (s *session) prompt(ctx context.Context, in input) (sdk.StopReason, error) {
	wait := make(chan sdk.StopReason, 1)
	s.mu.Lock()
	if s.waiter != nil {
		s.mu.Unlock()
		return "", sdk.NewInvalidRequest(map[string]any{"error": "a prompt of this session is still running"})
	}
	s.waiter = wait
	taskID, open, mode := s.taskID, s.open, s.mode
	s.open = nil
	announce := !s.announced
	s.announced = true
	s.mu.Unlock()
	if announce {
		s.announceCommands(ctx)
	}
	dropWaiter := func() {
		s.mu.Lock()
		if s.waiter == wait {
			s.waiter = nil
		}
		s.mu.Unlock()
	}
	tasks := s.a.o.Tasks
	var err error
	switch {
	case taskID == "":
		own := s.overrides()
		var resp *cairnv1.NewTaskResponse
		resp, err = tasks.NewTask(ctx, &cairnv1.NewTaskRequest{Text: strings.ToValidUTF8(in.text, "\uFFFD"), Images: in.images,
			Files: in.files, WorkspaceRoots: s.roots, ModeSlug: mode, Overrides: own, HostId: s.hostID()})
		if err == nil {
			s.follow(resp.GetTaskId())
			if rerr := s.a.remember(ctx, s.id, resp.GetTaskId()); rerr != nil {
				// The turn goes on; only session/load of this session from another process
				// will not find the task (its id still loads it).
				s.a.log.Warn("acp: writing down the session's task; session/load will need the task id", "session", s.id,
					"task", resp.GetTaskId(), "err", rerr)
			}
		}
	case open != nil:
		r := cairnv1.AskResponse_ASK_RESPONSE_MESSAGE
		switch open.GetAsk() {
		case cairnv1.AskKind_ASK_KIND_TASK_LIMIT_REACHED, cairnv1.AskKind_ASK_KIND_API_REQ_FAILED,
			cairnv1.AskKind_ASK_KIND_MISTAKE_LIMIT_REACHED, cairnv1.AskKind_ASK_KIND_REPEATED_TOOL_CALL,
			cairnv1.AskKind_ASK_KIND_AUTO_APPROVAL_MAX_REQ_REACHED:
			// Going on is an approval; the prompt's text is the guidance.
			r = cairnv1.AskResponse_ASK_RESPONSE_APPROVE
		}
		_, err = tasks.AnswerAsk(ctx, &cairnv1.AnswerAskRequest{TaskId: taskID, Response: r, Text: in.text, Images: in.images,
			Files: in.files, MessageIndex: proto.Int32(open.GetIndex())})
	default:
		_, err = tasks.SendMessage(ctx, &cairnv1.SendMessageRequest{TaskId: taskID, Text: in.text, Images: in.images, Files: in.files})
	}
	if err != nil {
		dropWaiter()
		if ctx.Err() != nil {
			return sdk.StopReasonCancelled, nil
		}
		return "", rpcError("starting the turn", err)
	}
	select {
	case r := <-wait:
		dropWaiter()
		return r, nil
	case <-ctx.Done():
		// session/cancel (the SDK ends the prompt's context) or the connection went away. The
		// waiter stays until the task confirms (its resume question), so that confirmation
		// cannot end the next prompt's turn; the wait is bounded to answer within a second.
		// Every update of the turn goes before its answer: the commands in the client's
		// terminals are killed, read to their end and released first, and what is still
		// running then is shown as failed before the answer (README "Use Cairn in Zed,
		// JetBrains, Neovim").
		deadline := time.Now().Add(cancelWait)
		s.cancelTask()
		s.mu.Lock()
		host := s.host
		s.mu.Unlock()
		if host != nil {
			host.killAll(context.WithoutCancel(ctx))
		}
		select {
		case <-wait:
		case <-time.After(time.Until(deadline)):
			s.a.log.Warn("acp: the task did not confirm the cancel in time", "task", s.taskIDNow())
		}
		if host != nil && !host.idle(deadline) {
			s.a.log.Warn("acp: a command in the client's terminal did not end in time", "task", s.taskIDNow())
		}
		s.closeCancelled()
		dropWaiter()
		return sdk.StopReasonCancelled, nil
	}
}

// overrides are the settings of the session's task: the agent's, with the client's MCP
// servers joined for that task only.
func (s *session) overrides() *cairnv1.TaskOverrides {
	own := &cairnv1.TaskOverrides{}
	if s.a.o.Overrides != nil {
		own = proto.Clone(s.a.o.Overrides).(*cairnv1.TaskOverrides)
	}
	own.McpServersJson = s.mcpJSON
	s.mu.Lock()
	if s.modelChosen {
		own.Model = s.model
	}
	if s.doneWhenSet {
		own.DoneWhen = s.doneWhen
	}
	s.mu.Unlock()
	return own
}

func (s *session) taskIDNow() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.taskID
}

// finish ends the running turn with r; without one running it does nothing.
func (s *session) finish(r sdk.StopReason, open *cairnv1.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if open != nil {
		s.open = open
	}
	if s.waiter != nil {
		s.waiter <- r
		s.waiter = nil
	}
}

// cancelTask cancels the task's run, waiting at most cancelWait for the daemon.
func (s *session) cancelTask() {
	s.mu.Lock()
	id := s.taskID
	s.mu.Unlock()
	if id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), cancelWait)
	defer cancel()
	if _, err := s.a.o.Tasks.CancelTask(ctx, &cairnv1.CancelTaskRequest{TaskId: id}); err != nil {
		s.a.log.Warn("acp: cancelling the task", "task", id, "err", err)
	}
}

// stop cancels the task, ends the subscription and closes the task in the daemon (it stays in
// history, resumable).
func (s *session) stop() {
	s.cancelTask()
	s.mu.Lock()
	stopSub, done, id, host := s.stopSub, s.subDone, s.taskID, s.host
	s.host = nil
	s.mu.Unlock()
	if host != nil {
		defer host.close()
	}
	if stopSub == nil {
		return
	}
	stopSub()
	<-done
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := s.a.o.Tasks.ClearTask(ctx, &cairnv1.ClearTaskRequest{TaskId: id}); err != nil {
		s.a.log.Warn("acp: closing the task in the daemon", "task", id, "err", err)
	}
}

// setMode switches the mode of the session and of its task, and tells the client.
func (s *session) setMode(ctx context.Context, m string) error {
	s.mu.Lock()
	id := s.taskID
	s.mode = m
	if m == modeAct && s.open.GetAsk() == cairnv1.AskKind_ASK_KIND_PLAN_MODE_RESPOND {
		// Switching to ACT answers the open plan question: the task goes on by itself.
		s.open = nil
	}
	s.mu.Unlock()
	if id != "" {
		if _, err := s.a.o.State.SetMode(ctx, &cairnv1.SetModeRequest{TaskId: id, ModeSlug: m}); err != nil {
			return rpcError("switching the mode", err)
		}
	}
	return s.update(sdk.SessionUpdate{CurrentModeUpdate: &sdk.SessionCurrentModeUpdate{CurrentModeId: sdk.SessionModeId(m)}})
}

// update sends one session/update.
func (s *session) update(u sdk.SessionUpdate) error {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	return s.sendLocked(u)
}

// say sends text as agent message text of its own: set apart from message text just before
// it by a blank line, never starting a message with one.
func (s *session) say(text string) error {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	sep := ""
	switch {
	case s.said == "", strings.HasSuffix(s.said, "\n\n"):
	case strings.HasSuffix(s.said, "\n"):
		sep = "\n"
	default:
		sep = "\n\n"
	}
	return s.sendLocked(sdk.UpdateAgentMessageText(sep + text))
}

// sendLocked sends u with sendMu held, keeping what the client has: the end of the message
// text, the tool calls still running. An update of a tool call a cancelled turn closed is not
// sent.
func (s *session) sendLocked(u sdk.SessionUpdate) error {
	var id sdk.ToolCallId
	var st *sdk.ToolCallStatus
	switch {
	case u.ToolCall != nil:
		id, st = u.ToolCall.ToolCallId, &u.ToolCall.Status
	case u.ToolCallUpdate != nil:
		id, st = u.ToolCallUpdate.ToolCallId, u.ToolCallUpdate.Status
	}
	if id != "" && s.closed[id] {
		return nil
	}
	switch {
	case id == "" || st == nil:
	case *st == sdk.ToolCallStatusPending || *st == sdk.ToolCallStatusInProgress:
		s.running[id] = true
	default:
		delete(s.running, id)
	}
	if c := u.AgentMessageChunk; c != nil && c.Content.Text != nil {
		t := s.said + c.Content.Text.Text
		s.said = t[max(0, len(t)-2):]
	} else {
		s.said = ""
	}
	return s.a.connection().SessionUpdate(s.a.ctx, sdk.SessionNotification{SessionId: s.id, Update: u})
}

// closeCancelled ends a cancelled turn's tool calls that are still running: each is shown as
// failed, and nothing more of it is sent, so the turn's answer comes after all of them.
func (s *session) closeCancelled() {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	for id := range s.running {
		if err := s.sendLocked(sdk.UpdateToolCall(id, sdk.WithUpdateStatus(sdk.ToolCallStatusFailed))); err != nil {
			s.a.log.Warn("acp: ending a cancelled tool call", "err", err)
		}
		s.closed[id] = true
	}
}

// commandStarted pairs a command's tool call with the client's terminal that runs it, once
// both are known (see session.calls).
func (s *session) commandStarted(id sdk.ToolCallId, line string) error {
	s.mu.Lock()
	if s.host == nil || !s.host.terminal {
		s.mu.Unlock()
		return nil // no client terminal: the command runs on the daemon's runner
	}
	// A call whose terminal never came (a command the daemon ran itself) is let go after a
	// while, so that the list stays short.
	if len(s.calls) >= maxWaiting {
		s.calls = s.calls[1:]
	}
	term := ""
	for i, t := range s.terms {
		if t.line == line {
			term = t.id
			s.terms = append(s.terms[:i:i], s.terms[i+1:]...)
			break
		}
	}
	if term == "" {
		s.calls = append(s.calls, waiting{id: string(id), line: line})
	} else {
		s.embedded[id] = term
	}
	s.mu.Unlock()
	if term == "" {
		return nil
	}
	return s.embed(id, term)
}

// terminalStarted is commandStarted for the client's terminal.
func (s *session) terminalStarted(term, line string) error {
	s.mu.Lock()
	var id sdk.ToolCallId
	for i, c := range s.calls {
		if c.line == line {
			id = sdk.ToolCallId(c.id)
			s.calls = append(s.calls[:i:i], s.calls[i+1:]...)
			break
		}
	}
	if id == "" {
		s.terms = append(s.terms, waiting{id: term, line: line})
	} else {
		s.embedded[id] = term
	}
	s.mu.Unlock()
	if id == "" {
		return nil
	}
	return s.embed(id, term)
}

// embed shows the client's terminal in the command's tool call, so the editor shows it live.
func (s *session) embed(id sdk.ToolCallId, term string) error {
	return s.update(sdk.UpdateToolCall(id, sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolTerminalRef(term)})))
}

// terminalOf is the client's terminal a tool call shows, "" when none.
func (s *session) terminalOf(id sdk.ToolCallId) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embedded[id]
}

// follow subscribes to the task and maps its events for the rest of the session.
func (s *session) follow(taskID string) { s.followFrom(taskID, false) }

// followFrom is follow; with replay the snapshot is a conversation being reloaded: it is sent
// as it stands, nothing in it is answered, and its state is sent on the returned channel once
// the snapshot is out.
func (s *session) followFrom(taskID string, replay bool) <-chan *cairnv1.TaskState {
	ctx, cancel := context.WithCancel(s.a.ctx)
	done := make(chan struct{})
	s.mu.Lock()
	s.taskID, s.stopSub, s.subDone = taskID, cancel, done
	s.mu.Unlock()
	replayed := make(chan *cairnv1.TaskState, 1)
	f := &follower{s: s, sent: map[int32]*sentText{}, handled: map[int32]bool{}, replayedAsks: map[int32]bool{},
		replay: replay, replayed: replayed}
	go func() {
		defer close(done)
		f.run(ctx, taskID)
	}()
	return replayed
}

// follower turns one task's subscription into session updates: it is the reader and the
// policy of a server/follow follower, on one goroutine, so its maps need no lock.
type follower struct {
	s *session
	// sent is how much of a streaming row's text the client has.
	sent map[int32]*sentText
	// handled marks the rows already shown as tool calls or answered.
	handled map[int32]bool
	// command is the tool call of the last command, which its output rows extend.
	command sdk.ToolCallId
	// focus is the focus chain last sent as the plan.
	focus string
	// replay is set while a reloaded snapshot is sent; replayed then gets its state, and
	// replayedAsks marks its asks, which are shown, never answered.
	replay       bool
	replayed     chan *cairnv1.TaskState
	replayedAsks map[int32]bool
	// openAsk is the snapshot's open ask, the one a reloaded session's next prompt answers.
	openAsk int32
	// outputLimit is set while the task's last finished model reply stopped at the model's
	// output-token limit: a turn that ends then ends with max_tokens.
	outputLimit bool
}

// noteRequest keeps whether the last finished model request stopped at the output limit.
func (f *follower) noteRequest(m *cairnv1.Message) {
	if m.GetSay() != cairnv1.SayKind_SAY_KIND_API_REQ_STARTED || !m.GetApiRequest().GetDone() {
		return
	}
	f.outputLimit = m.GetApiRequest().GetOutputLimit()
}

// ended is the stop reason of a turn the task ended by itself: max_tokens when the model's
// last reply stopped at its output limit, otherwise end_turn.
func (f *follower) ended() sdk.StopReason {
	if f.outputLimit {
		return sdk.StopReasonMaxTokens
	}
	return sdk.StopReasonEndTurn
}

// planEntries reads the focus chain's checklist ("- [ ] step", "- [x] step") as plan entries:
// the first open step is in progress.
func planEntries(fc string) []sdk.PlanEntry {
	var out []sdk.PlanEntry
	current := false
	for _, l := range strings.Split(fc, "\n") {
		l = strings.TrimSpace(l)
		var done bool
		var rest string
		switch {
		case strings.HasPrefix(l, "- [ ]"):
			rest = l[len("- [ ]"):]
		case strings.HasPrefix(l, "- [x]"), strings.HasPrefix(l, "- [X]"):
			rest, done = l[len("- [x]"):], true
		default:
			continue
		}
		st := sdk.PlanEntryStatusCompleted
		if !done {
			st = sdk.PlanEntryStatusPending
			if !current {
				st, current = sdk.PlanEntryStatusInProgress, true
			}
		}
		out = append(out, sdk.PlanEntry{Content: strings.TrimSpace(rest), Priority: sdk.PlanEntryPriorityMedium, Status: st})
	}
	return out
}

func (f *follower) run(ctx context.Context, taskID string) {
	log := f.s.a.log
	stream, err := f.s.a.o.UI.Subscribe(ctx, &cairnv1.SubscribeRequest{TaskId: taskID})
	if err != nil {
		log.Error("acp: subscribing to the task", "task", taskID, "err", err)
		f.s.finish(sdk.StopReasonEndTurn, nil)
		return
	}
	fl := follow.New(stream, f, f.ask, follow.Options{SnapshotAsks: follow.AllSnapshotAsks})
	// The policy never stops, so Next returns only when the subscription ends.
	if _, err := fl.Next(ctx); err != nil && ctx.Err() == nil {
		log.Warn("acp: the task's subscription ended", "task", taskID, "err", err)
		f.s.finish(sdk.StopReasonEndTurn, nil)
	}
}

// logSend logs a failure to send an update to the client: the session goes on.
func (f *follower) logSend(ctx context.Context, err error) {
	if err != nil && ctx.Err() == nil {
		f.s.a.log.Warn("acp: sending to the client", "err", err)
	}
}

// Snapshot starts a snapshot: its state, and the open ask a reloaded session's next prompt
// answers.
func (f *follower) Snapshot(_ context.Context, st *cairnv1.TaskState) {
	f.state(st)
	f.openAsk = st.GetOpenAskIndex()
}

// Row is a row of the snapshot, sent as a new one.
func (f *follower) Row(ctx context.Context, m *cairnv1.Message) {
	if f.replay && m.GetAsk() != cairnv1.AskKind_ASK_KIND_UNSPECIFIED {
		f.replayedAsks[m.GetIndex()] = true
	}
	f.logSend(ctx, f.added(ctx, m))
}

// SnapshotEnd ends a reloaded conversation's replay.
func (f *follower) SnapshotEnd(_ context.Context, st *cairnv1.TaskState) {
	if f.replay {
		f.replay = false
		f.replayed <- st
	}
}

// Added is a new row.
func (f *follower) Added(ctx context.Context, m *cairnv1.Message) { f.logSend(ctx, f.added(ctx, m)) }

// Appended streams what a row grew by.
func (f *follower) Appended(ctx context.Context, m *cairnv1.Message, _ string) {
	f.logSend(ctx, f.stream(m))
}

// Finalized settles a row that stopped streaming.
func (f *follower) Finalized(ctx context.Context, m *cairnv1.Message) {
	f.logSend(ctx, f.settled(ctx, m))
}

// Updated sends what a row replaced whole adds.
func (f *follower) Updated(ctx context.Context, m, old *cairnv1.Message) {
	f.noteRequest(m)
	switch {
	case old == nil:
		f.logSend(ctx, f.added(ctx, m))
	case m.GetSay() == cairnv1.SayKind_SAY_KIND_COMMAND_OUTPUT:
		f.logSend(ctx, f.output(m))
	default:
		err := f.stream(m)
		if err == nil && old.GetPartial() && !m.GetPartial() {
			err = f.settled(ctx, m)
		}
		f.logSend(ctx, err)
	}
}

// State is the task's new state.
func (f *follower) State(_ context.Context, st *cairnv1.TaskState) { f.state(st) }

// state ends the turn when the task stopped.
func (f *follower) state(st *cairnv1.TaskState) {
	if st == nil {
		return
	}
	if fc := st.GetFocusChain(); fc != f.focus {
		f.focus = fc
		if entries := planEntries(fc); len(entries) > 0 {
			if err := f.s.update(sdk.UpdatePlan(entries...)); err != nil {
				f.s.a.log.Warn("acp: sending the plan", "err", err)
			}
		}
	}
	// A cancelled run confirms with its resume question (settled), not here.
	switch st.GetStatus() {
	case cairnv1.TaskStatus_TASK_STATUS_FAILED:
		f.s.finish(f.ended(), nil)
	}
}

func (f *follower) added(ctx context.Context, m *cairnv1.Message) error {
	f.noteRequest(m)
	if m.GetSay() == cairnv1.SayKind_SAY_KIND_COMMAND_OUTPUT {
		return f.output(m)
	}
	if err := f.stream(m); err != nil {
		return err
	}
	if !m.GetPartial() {
		return f.settled(ctx, m)
	}
	return nil
}

// stream sends the part of a text or reasoning row the client does not have yet: a text row's
// <thinking> sections as thought chunks, the rest as message chunks.
func (f *follower) stream(m *cairnv1.Message) error {
	var thought, text string
	switch m.GetSay() {
	case cairnv1.SayKind_SAY_KIND_TEXT:
		thought, text = splitThinking(m.GetText(), !m.GetPartial())
	case cairnv1.SayKind_SAY_KIND_REASONING:
		thought = m.GetText()
	default:
		return nil
	}
	sent := f.sent[m.GetIndex()]
	if sent == nil {
		sent = &sentText{}
		f.sent[m.GetIndex()] = sent
	}
	if len(thought) > sent.thought && strings.HasPrefix(thought, thought[:sent.thought]) {
		d := thought[sent.thought:]
		sent.thought = len(thought)
		if err := f.s.update(sdk.UpdateAgentThoughtText(d)); err != nil {
			return err
		}
	}
	if len(text) > sent.text {
		d := text[sent.text:]
		sent.text = len(text)
		return f.s.update(sdk.UpdateAgentMessageText(d))
	}
	return nil
}

// sentText is how much of a row's thought and message text the client has.
type sentText struct{ thought, text int }

// splitThinking separates the <thinking> sections of a reply from the rest. While the reply
// streams (final false), a tail that may be the start of a tag is held back, so each call's
// results extend the previous call's.
func splitThinking(t string, final bool) (thought, text string) {
	var tb, mb strings.Builder
	in := false
	for t != "" {
		tag := "<thinking>"
		if in {
			tag = "</thinking>"
		}
		out := &mb
		if in {
			out = &tb
		}
		i := strings.Index(t, tag)
		if i < 0 {
			keep := len(t)
			if !final {
				for k := 1; k < len(tag) && k <= len(t); k++ {
					if strings.HasSuffix(t, tag[:k]) {
						keep = len(t) - k
					}
				}
			}
			out.WriteString(t[:keep])
			break
		}
		out.WriteString(t[:i])
		t = t[i+len(tag):]
		in = !in
	}
	return tb.String(), mb.String()
}

// settled handles a row that stopped streaming: tool rows become tool calls, asks end the
// turn or become permission requests.
func (f *follower) settled(_ context.Context, m *cairnv1.Message) error {
	if f.handled[m.GetIndex()] {
		return nil
	}
	f.handled[m.GetIndex()] = true
	if f.replay {
		return f.replayed1(m)
	}
	switch m.GetSay() {
	case cairnv1.SayKind_SAY_KIND_TOOL:
		return f.s.update(f.toolCall(m, sdk.ToolCallStatusCompleted))
	case cairnv1.SayKind_SAY_KIND_COMMAND:
		f.command = callID(m)
		if err := f.s.update(f.toolCall(m, sdk.ToolCallStatusInProgress)); err != nil {
			return err
		}
		return f.s.commandStarted(f.command, m.GetCommand().GetCommand())
	case cairnv1.SayKind_SAY_KIND_MCP_SERVER_REQUEST_STARTED, cairnv1.SayKind_SAY_KIND_BROWSER_ACTION:
		return f.s.update(f.toolCall(m, sdk.ToolCallStatusCompleted))
	case cairnv1.SayKind_SAY_KIND_COMPLETION_RESULT:
		return f.s.say(m.GetText())
	case cairnv1.SayKind_SAY_KIND_ERROR, cairnv1.SayKind_SAY_KIND_DIFF_ERROR, cairnv1.SayKind_SAY_KIND_IGNORE_ERROR:
		return f.s.say("Error: " + m.GetText() + "\n")
	}
	return nil
}

// ask is the follower's policy: it answers the task's questions, or ends the prompt's turn
// with them. It never stops the follower; a failure to send or answer is logged.
func (f *follower) ask(ctx context.Context, m *cairnv1.Message) (bool, error) {
	if f.replayedAsks[m.GetIndex()] {
		return false, nil // a reloaded conversation's ask: shown, kept for the next prompt
	}
	f.logSend(ctx, f.answerAsk(ctx, m))
	return false, nil
}

func (f *follower) answerAsk(ctx context.Context, m *cairnv1.Message) error {
	switch m.GetAsk() {
	case cairnv1.AskKind_ASK_KIND_UNSPECIFIED:
		return nil
	case cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT:
		f.s.finish(sdk.StopReasonEndTurn, m)
	case cairnv1.AskKind_ASK_KIND_FOLLOWUP, cairnv1.AskKind_ASK_KIND_PLAN_MODE_RESPOND:
		q := m.GetText()
		if fu := m.GetFollowup(); fu != nil && fu.GetQuestion() != "" {
			q = fu.GetQuestion()
		}
		for i, o := range m.GetFollowup().GetOptions() {
			q += fmt.Sprintf("\n%d. %s", i+1, o)
		}
		if err := f.s.say(q); err != nil {
			return err
		}
		f.s.finish(sdk.StopReasonEndTurn, m)
	case cairnv1.AskKind_ASK_KIND_TASK_LIMIT_REACHED, cairnv1.AskKind_ASK_KIND_AUTO_APPROVAL_MAX_REQ_REACHED:
		if err := f.s.say(strings.TrimSpace(m.GetText())); err != nil {
			return err
		}
		f.s.finish(sdk.StopReasonMaxTurnRequests, m)
	case cairnv1.AskKind_ASK_KIND_API_REQ_FAILED, cairnv1.AskKind_ASK_KIND_MISTAKE_LIMIT_REACHED,
		cairnv1.AskKind_ASK_KIND_REPEATED_TOOL_CALL:
		if err := f.s.say(strings.TrimSpace(m.GetText())); err != nil {
			return err
		}
		f.s.finish(f.ended(), m)
	case cairnv1.AskKind_ASK_KIND_RESUME_TASK, cairnv1.AskKind_ASK_KIND_RESUME_COMPLETED_TASK:
		// Asked after a cancel: the next prompt resumes the task with its text.
		f.s.finish(sdk.StopReasonCancelled, m)
	case cairnv1.AskKind_ASK_KIND_NEW_TASK, cairnv1.AskKind_ASK_KIND_CONDENSE:
		return f.answer(ctx, m, cairnv1.AskResponse_ASK_RESPONSE_APPROVE, "")
	case cairnv1.AskKind_ASK_KIND_TOOL, cairnv1.AskKind_ASK_KIND_COMMAND, cairnv1.AskKind_ASK_KIND_BROWSER_ACTION_LAUNCH,
		cairnv1.AskKind_ASK_KIND_USE_MCP_SERVER:
		return f.permission(ctx, m)
	}
	return nil
}

// answer answers the task's ask m.
func (f *follower) answer(ctx context.Context, m *cairnv1.Message, r cairnv1.AskResponse, text string) error {
	f.s.mu.Lock()
	id := f.s.taskID
	f.s.mu.Unlock()
	_, err := f.s.a.o.Tasks.AnswerAsk(ctx, &cairnv1.AnswerAskRequest{TaskId: id, Response: r, Text: text,
		MessageIndex: proto.Int32(m.GetIndex())})
	if err != nil {
		return fmt.Errorf("answering ask %d: %w", m.GetIndex(), err)
	}
	return nil
}

// output shows a command's output as the content of the command's tool call.
func (f *follower) output(m *cairnv1.Message) error {
	if f.command == "" {
		return nil
	}
	var opts []sdk.ToolCallUpdateOpt
	// A command shown in the client's terminal keeps that terminal as its content; the text
	// is for the clients without one.
	if m.GetText() != "" && f.s.terminalOf(f.command) == "" {
		opts = append(opts, sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock("```\n" + m.GetText() + "\n```"))}))
	}
	if o := m.GetCommandOutput(); o != nil && !o.GetRunning() && !m.GetPartial() {
		st := sdk.ToolCallStatusCompleted
		if o.ExitCode != nil && o.GetExitCode() != 0 {
			st = sdk.ToolCallStatusFailed
		}
		opts = append(opts, sdk.WithUpdateStatus(st))
	}
	if len(opts) == 0 {
		return nil
	}
	return f.s.update(sdk.UpdateToolCall(f.command, opts...))
}

// replayed1 sends one row of a reloaded conversation: what the user said as user chunks, the
// rest as during the task; its open ask is kept for the next prompt and nothing is answered.
func (f *follower) replayed1(m *cairnv1.Message) error {
	if m.GetAsk() != cairnv1.AskKind_ASK_KIND_UNSPECIFIED && m.GetIndex() == f.openAsk {
		f.s.mu.Lock()
		f.s.open = m
		f.s.mu.Unlock()
	}
	switch m.GetSay() {
	case cairnv1.SayKind_SAY_KIND_TASK, cairnv1.SayKind_SAY_KIND_USER_FEEDBACK:
		return f.s.update(sdk.UpdateUserMessageText(m.GetText()))
	case cairnv1.SayKind_SAY_KIND_TOOL, cairnv1.SayKind_SAY_KIND_COMMAND, cairnv1.SayKind_SAY_KIND_MCP_SERVER_REQUEST_STARTED,
		cairnv1.SayKind_SAY_KIND_BROWSER_ACTION:
		return f.s.update(f.toolCall(m, sdk.ToolCallStatusCompleted))
	case cairnv1.SayKind_SAY_KIND_COMPLETION_RESULT:
		return f.s.say(m.GetText())
	}
	switch m.GetAsk() {
	case cairnv1.AskKind_ASK_KIND_FOLLOWUP, cairnv1.AskKind_ASK_KIND_PLAN_MODE_RESPOND:
		q := m.GetText()
		if fu := m.GetFollowup(); fu != nil && fu.GetQuestion() != "" {
			q = fu.GetQuestion()
		}
		return f.s.say(q)
	case cairnv1.AskKind_ASK_KIND_TOOL, cairnv1.AskKind_ASK_KIND_COMMAND:
		// An action asked about earlier: shown as it was proposed.
		return f.s.update(f.toolCall(m, sdk.ToolCallStatusCompleted))
	}
	return nil
}

// announceCommands sends the slash commands and workflows of the primary root; the prompt
// carries them as text ("/name …") and the task expands them as in VS Code. A failure only
// leaves the client without the list.
func (s *session) announceCommands(ctx context.Context) {
	if s.a.o.Files == nil {
		return
	}
	resp, err := s.a.o.Files.ListSlashCommands(ctx, &cairnv1.ListSlashCommandsRequest{WorkspaceRoot: s.roots[0]})
	if err != nil {
		s.a.log.Warn("acp: listing the slash commands", "err", err)
		return
	}
	cmds := []sdk.AvailableCommand{}
	for _, c := range resp.GetCommands() {
		cmds = append(cmds, sdk.AvailableCommand{Name: c.GetName(), Description: c.GetDescription()})
	}
	if err := s.update(sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{AvailableCommands: cmds}}); err != nil {
		s.a.log.Warn("acp: sending the slash commands", "err", err)
	}
}
