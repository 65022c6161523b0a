package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/cairnhq/cairn/server/follow"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// Client is the daemon's services the harness drives tasks through.
type Client struct {
	Tasks cairnv1.TaskServiceClient
	UI    cairnv1.UiServiceClient
}

// Config is one benchmark run.
type Config struct {
	Client     Client
	Toolchains *Toolchains
	// Tries is how many times an exercise's tests run (Aider's protocol: 2); after a failed
	// run with tries left, the output goes back to the same task.
	Tries int
	// Parallel is how many exercises run at once.
	Parallel int
	// Agentic tells the model it may run the tests itself (the daemon's settings then offer
	// and approve commands).
	Agentic bool
	// DoneCheck makes each exercise's tests its task's "done when" check (README, "Done
	// when"): a completion is accepted only once they pass, their output going back to the
	// model inside the task. The harness still runs the tests itself, after putting the test
	// files back, to judge each try.
	DoneCheck bool
	// TestTimeout bounds each test run; TaskTimeout bounds an exercise from its first request
	// to its last test run.
	TestTimeout, TaskTimeout time.Duration
	// WorkDir holds the workspaces (WorkDir/LANG/NAME) and the harness's scratch folders.
	WorkDir string
	Results *Results
	// Done are the results already in the file (--resume): the progress counts them.
	Done     []Result
	Progress io.Writer
	// Bar puts a progress bar before each progress line, for a terminal; plain lines
	// otherwise (a log file, CI).
	Bar    bool
	Logger *slog.Logger
}

// Run runs the exercises, Parallel at a time, appending each finished one to Results. When
// ctx ends it stops the tasks and returns ctx's error; an exercise cut short is not written, so
// the file stays valid and --resume runs it again.
func Run(ctx context.Context, cfg Config, exercises []Exercise) ([]Result, error) {
	if cfg.Parallel < 1 {
		cfg.Parallel = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan Exercise)
	var (
		mu      sync.Mutex
		fresh   []Result
		all     = append([]Result(nil), cfg.Done...)
		failure error
		wg      sync.WaitGroup
	)
	total := len(cfg.Done) + len(exercises)
	for range cfg.Parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ex := range jobs {
				r := runExercise(ctx, cfg, ex)
				if ctx.Err() != nil {
					return // cut short: not a result
				}
				mu.Lock()
				if err := cfg.Results.Add(r); err != nil && failure == nil {
					failure = fmt.Errorf("writing the results: %w", err)
					cancel()
				}
				fresh = append(fresh, r)
				all = append(all, r)
				progress(cfg.Progress, r, all, total, cfg.Bar)
				mu.Unlock()
			}
		}()
	}
feed:
	for _, ex := range exercises {
		select {
		case jobs <- ex:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if failure != nil {
		return fresh, failure
	}
	return fresh, ctx.Err()
}

// progress prints one line per finished exercise with the running pass rate.
func progress(w io.Writer, r Result, all []Result, total int, bar bool) {
	if w == nil {
		return
	}
	passed := 0
	var cost float64
	unknown := false
	for _, x := range all {
		if x.Passed {
			passed++
		}
		cost += x.CostUSD
		unknown = unknown || x.PriceUnknown
	}
	verdict := "failed"
	if r.PassedOnTry != nil {
		verdict = fmt.Sprintf("passed on try %d", *r.PassedOnTry)
	}
	if r.Error != "" {
		verdict += " (" + firstLine(r.Error) + ")"
	}
	// A failed write to the progress stream loses only the progress line.
	if bar {
		_, _ = fmt.Fprint(w, progressBar(len(all), total)+" ")
	}
	_, _ = fmt.Fprintf(w, "[%d/%d] %s: %s in %.0fs | pass rate %.1f%% (%d/%d) | %s\n", len(all), total, r.Key(),
		verdict, r.Seconds, 100*float64(passed)/float64(len(all)), passed, len(all), costText(cost, unknown))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// runExercise runs one exercise to its result.
func runExercise(ctx context.Context, cfg Config, ex Exercise) (res Result) {
	start := time.Now()
	res = Result{Language: ex.Language, Exercise: ex.Name}
	defer func() { res.Seconds = time.Since(start).Seconds() }()
	log := cfg.Logger.With("exercise", ex.Key())
	ws := filepath.Join(cfg.WorkDir, ex.Language, ex.Name)
	scratch := filepath.Join(cfg.WorkDir, ".scratch", ex.Language, ex.Name)
	if err := Prepare(ctx, ex, ws); err != nil {
		res.Error = err.Error()
		return res
	}
	text, err := TaskText(ex, cfg.Agentic)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	tctx := ctx
	if cfg.TaskTimeout > 0 {
		var cancel context.CancelFunc
		tctx, cancel = context.WithTimeout(ctx, cfg.TaskTimeout)
		defer cancel()
	}
	req := &cairnv1.NewTaskRequest{Text: text, WorkspaceRoots: []string{ws}, Mode: cairnv1.Mode_MODE_ACT}
	if cmd := cfg.Toolchains.CheckCommand(ex); cfg.DoneCheck && cmd != "" {
		req.Overrides = &cairnv1.TaskOverrides{DoneWhen: cmd}
	}
	resp, err := cfg.Client.Tasks.NewTask(tctx, req)
	if err != nil {
		res.Error = "starting the task: " + err.Error()
		return res
	}
	id := resp.GetTaskId()
	s := &session{c: cfg.Client, id: id}
	defer func() {
		s.close(log, ctx.Err() != nil)
		prompt, completion, cost := s.usage()
		res.PromptTokens, res.CompletionTokens, res.CostUSD = prompt, completion, cost
		s.health(&res)
		st := s.state
		res.PriceUnknown = !st.GetPricesKnown() && !st.GetIncluded() && cost == 0 && prompt+completion > 0
	}()
	sctx, stop := context.WithCancel(tctx)
	defer stop()
	if err := s.subscribe(sctx); err != nil {
		res.Error = "following the task: " + err.Error()
		return res
	}
	for try := 1; try <= cfg.Tries; try++ {
		ask, err := s.next(sctx)
		if err != nil {
			if errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
				err = fmt.Errorf("the exercise did not finish within %s", cfg.TaskTimeout)
			}
			res.Error = err.Error()
			return res
		}
		res.Tries = try
		stopped := stopReason(ask)
		if err := RestoreTests(ex, ws); err != nil {
			res.Error = err.Error()
			return res
		}
		run, err := cfg.Toolchains.Test(ctx, ex, ws, scratch, cfg.TestTimeout)
		if err != nil {
			res.Error = "running the tests: " + err.Error()
			return res
		}
		log.Debug("eval: tests ran", "try", try, "passed", run.Passed)
		if run.TimedOut {
			res.TestTimeouts++
		}
		if run.Passed {
			res.Passed, res.PassedOnTry = true, &try
			return res
		}
		if stopped != "" {
			res.Error = stopped
			return res
		}
		if try == cfg.Tries {
			return res
		}
		if _, err := cfg.Client.Tasks.AnswerAsk(sctx, &cairnv1.AnswerAskRequest{TaskId: id,
			Response: cairnv1.AskResponse_ASK_RESPONSE_MESSAGE, Text: FeedbackText(ex, run.Output),
			MessageIndex: proto.Int32(ask.GetIndex())}); err != nil {
			res.Error = "sending the test output: " + err.Error()
			return res
		}
	}
	return res
}

// stopReason is why an ask ends the exercise whatever its tests say ("" when the task just
// finished a try: a completion, a question or a plan, which the test output answers).
func stopReason(m *cairnv1.Message) string {
	switch m.GetAsk() {
	case cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT, cairnv1.AskKind_ASK_KIND_FOLLOWUP, cairnv1.AskKind_ASK_KIND_PLAN_MODE_RESPOND:
		return ""
	case cairnv1.AskKind_ASK_KIND_API_REQ_FAILED:
		return "the model's endpoint failed: " + strings.TrimSpace(m.GetText())
	case cairnv1.AskKind_ASK_KIND_NEW_TASK:
		return "the model asked for a new task"
	}
	text := strings.TrimSpace(m.GetText())
	if text == "" {
		text = "no text"
	}
	return "the task stopped (" + strings.ToLower(strings.TrimPrefix(m.GetAsk().String(), "ASK_KIND_")) + "): " + text
}

// session follows one task's events (server/follow): the follower keeps its state, the
// session answers its asks.
type session struct {
	c  Client
	id string
	f  *follow.Follower
	// state is the task's last known state (its tokens and cost), kept past the follower for
	// close's fresh snapshot.
	state *cairnv1.TaskState
}

func (s *session) subscribe(ctx context.Context) error {
	stream, err := s.c.UI.Subscribe(ctx, &cairnv1.SubscribeRequest{TaskId: s.id})
	if err != nil {
		return err
	}
	s.f = follow.New(stream, nil, s.answer, follow.Options{SnapshotAsks: follow.OpenAsk})
	return nil
}

// next follows the task until it asks something that ends a try and returns that ask.
// Approvals the settings did not give are refused (nobody is there to give them); resume,
// condense and auto-approval-count questions are approved.
func (s *session) next(ctx context.Context) (*cairnv1.Message, error) {
	m, err := s.f.Next(ctx)
	s.state = s.f.State()
	return m, err
}

// answer answers the asks that do not end a try; end reports one that does (the follower's
// policy).
func (s *session) answer(ctx context.Context, m *cairnv1.Message) (end bool, err error) {
	reply := func(r cairnv1.AskResponse, text string) error {
		_, err := s.c.Tasks.AnswerAsk(ctx, &cairnv1.AnswerAskRequest{TaskId: s.id, Response: r, Text: text,
			MessageIndex: proto.Int32(m.GetIndex())})
		return err
	}
	switch m.GetAsk() {
	case cairnv1.AskKind_ASK_KIND_TOOL, cairnv1.AskKind_ASK_KIND_COMMAND, cairnv1.AskKind_ASK_KIND_BROWSER_ACTION_LAUNCH,
		cairnv1.AskKind_ASK_KIND_USE_MCP_SERVER:
		return false, reply(cairnv1.AskResponse_ASK_RESPONSE_REJECT, refusal(describe(m)))
	case cairnv1.AskKind_ASK_KIND_RESUME_TASK, cairnv1.AskKind_ASK_KIND_RESUME_COMPLETED_TASK, cairnv1.AskKind_ASK_KIND_CONDENSE,
		// The count of auto-approved actions in a row is a pause for a user watching; a
		// benchmark is bounded by the task limits and the exercise's time limit instead.
		cairnv1.AskKind_ASK_KIND_AUTO_APPROVAL_MAX_REQ_REACHED:
		return false, reply(cairnv1.AskResponse_ASK_RESPONSE_APPROVE, "")
	case cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT, cairnv1.AskKind_ASK_KIND_FOLLOWUP, cairnv1.AskKind_ASK_KIND_PLAN_MODE_RESPOND,
		cairnv1.AskKind_ASK_KIND_API_REQ_FAILED, cairnv1.AskKind_ASK_KIND_MISTAKE_LIMIT_REACHED,
		cairnv1.AskKind_ASK_KIND_TASK_LIMIT_REACHED, cairnv1.AskKind_ASK_KIND_REPEATED_TOOL_CALL,
		cairnv1.AskKind_ASK_KIND_NEW_TASK:
		return true, nil
	}
	// Others (a running command's "proceed while running?") need no answer: the task goes on.
	return false, nil
}

// describe names what an ask wants approved, for the refusal.
func describe(m *cairnv1.Message) string {
	switch {
	case m.GetCommand() != nil:
		return "the command `" + m.GetCommand().GetCommand() + "`"
	case m.GetBrowser() != nil:
		return "the browser"
	case m.GetMcp() != nil:
		return "the MCP server " + m.GetMcp().GetServerName()
	case m.GetTool().GetPath() != "":
		return "the use of " + m.GetTool().GetPath()
	}
	return "a tool"
}

// usage is the task's tokens (prompt: every input token, cached or not) and cost.
func (s *session) usage() (prompt, completion int64, cost float64) {
	st := s.state
	return st.GetTokensIn() + st.GetCacheReads() + st.GetCacheWrites(), st.GetTokensOut(), st.GetCost()
}

// close stops the task and takes it out of the daemon (it stays in the data dir's history).
// It gets its own short deadline: the run's context may be over. When the run was interrupted
// the daemon is stopping too, and a failure says nothing.
func (s *session) close(log *slog.Logger, interrupted bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.c.Tasks.CancelTask(ctx, &cairnv1.CancelTaskRequest{TaskId: s.id}); err != nil {
		log.Debug("eval: cancelling the task", "task", s.id, "err", err)
	}
	// The last request's usage may not have reached the stream yet: a new snapshot has it.
	if stream, err := s.c.UI.Subscribe(ctx, &cairnv1.SubscribeRequest{TaskId: s.id}); err == nil {
		if ev, err := stream.Recv(); err == nil && ev.GetSnapshot() != nil {
			s.state = ev.GetSnapshot().GetState()
		}
	}
	if _, err := s.c.Tasks.ClearTask(ctx, &cairnv1.ClearTaskRequest{TaskId: s.id}); err != nil && !interrupted {
		log.Warn("eval: closing the task in the daemon", "task", s.id, "err", err)
	}
}

// costText is a cost by the one rule of every view (README, "One cost truth"): a figure only
// when every price in it is known.
func costText(cost float64, unknown bool) string {
	if unknown {
		return "price unknown"
	}
	return fmt.Sprintf("$%.4f", cost)
}

// health counts the task's rows that tell the run's health (Result's Replies and the rest). A
// reply is malformed when the loop could not use it: an edit that did not apply, an error row,
// or no tool call at all (no tool, command, completion or question follows it before the
// next request).
func (s *session) health(res *Result) {
	if s.f == nil {
		return
	}
	open, used, bad := false, false, false
	end := func() {
		if open && (bad || !used) {
			res.MalformedReplies++
		}
	}
	for _, m := range s.f.Messages() {
		if m.GetAsk() != cairnv1.AskKind_ASK_KIND_UNSPECIFIED {
			used = true
			continue
		}
		switch m.GetSay() {
		case cairnv1.SayKind_SAY_KIND_API_REQ_STARTED:
			end()
			res.Replies++
			open, used, bad = true, false, false
		case cairnv1.SayKind_SAY_KIND_TOOL, cairnv1.SayKind_SAY_KIND_COMMAND, cairnv1.SayKind_SAY_KIND_COMPLETION_RESULT,
			cairnv1.SayKind_SAY_KIND_BROWSER_ACTION_LAUNCH, cairnv1.SayKind_SAY_KIND_MCP_SERVER_REQUEST_STARTED,
			cairnv1.SayKind_SAY_KIND_SUBAGENTS, cairnv1.SayKind_SAY_KIND_LOAD_MCP_DOCUMENTATION:
			used = true
		case cairnv1.SayKind_SAY_KIND_ERROR, cairnv1.SayKind_SAY_KIND_DIFF_ERROR:
			bad = true
		case cairnv1.SayKind_SAY_KIND_API_REQ_RETRIED, cairnv1.SayKind_SAY_KIND_ERROR_RETRY:
			res.Timeouts++
		case cairnv1.SayKind_SAY_KIND_DELETED_API_REQS:
			res.ContextExhausted++
		}
	}
	end()
}

// barWidth is the progress bar's width in cells.
const barWidth = 20

// progressBar draws done of total as a bar of barWidth cells.
func progressBar(done, total int) string {
	if total <= 0 {
		return ""
	}
	n := min(barWidth, done*barWidth/total)
	return "[" + strings.Repeat("█", n) + strings.Repeat("░", barWidth-n) + "]"
}
