package task

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/host/direct"
	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/llm/openai"
	"github.com/cairnhq/cairn/core/msg"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/core/tools"
	"github.com/cairnhq/cairn/core/tools/interact"
	"github.com/cairnhq/cairn/core/workspace"
)

// screenshotTool stands for browser_action: a tool only models that see images are offered.
type screenshotTool struct{}

func (screenshotTool) Spec() tools.Spec {
	return tools.Spec{Name: "take_screenshot", Description: "Takes a screenshot.", NeedsImages: true, PlanSafe: true}
}

func (screenshotTool) Run(context.Context, *tools.Env, tools.Call) (tools.Result, error) {
	return tools.Result{Text: "a picture"}, nil
}

// modeTurns records, for each request, the model the loop described to the turn builder.
type modeTurns struct {
	bareTurns
	mu      sync.Mutex
	prompts []llm.ModelInfo
	windows []int
	env     []int64
}

func (m *modeTurns) SystemPrompt(_ string, info llm.ModelInfo, _ []llm.Message) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prompts = append(m.prompts, info)
	return "system"
}

func (m *modeTurns) Project(h []llm.Message, _ int64, window int) []llm.Message {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.windows = append(m.windows, window)
	return h
}

func (m *modeTurns) EnvDetails(_ context.Context, r EnvRequest) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.env = append(m.env, r.ContextWindow)
	return ""
}

// TestPlanModelGovernsItsRequests: with an 8k-window, XML-only PLAN model without images or
// prices beside a 128k native ACT model that has them, everything that depends on the model
// follows the mode's model: the window the history is projected into, auto-condense, the
// environment details' window, the system prompt's tool format, the native tool list (and the
// tools that need images), the header's window and prices.
func TestPlanModelGovernsItsRequests(t *testing.T) {
	act := llm.ModelInfo{ContextWindow: 128_000, ToolFormat: llm.ToolFormatNative, SupportsImages: true, InputPrice: 1, OutputPrice: 2}
	plan := llm.ModelInfo{ContextWindow: 8_000, ToolFormat: llm.ToolFormatXML}
	big := &llmtest.Usage{PromptTokens: 7_000, CompletionTokens: 10}
	respond := func(s string) llmtest.Turn {
		return llmtest.Turn{Text: "<plan_mode_respond>\n<response>" + s + "</response>\n</plan_mode_respond>", Usage: big,
			Expect: &llmtest.Expect{Model: "plan-small"}}
	}
	done := completionCall(t)
	done.Expect = &llmtest.Expect{Model: "act-big"}
	server := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{respond("One."), respond("Two."), respond("Three."), done}})
	turns := &modeTurns{}
	st, err := store.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	mgr := NewManager(st, func(context.Context, Options) (Deps, error) {
		ws, err := workspace.New(root)
		if err != nil {
			return Deps{}, err
		}
		reg := tools.NewRegistry(screenshotTool{})
		for _, tl := range interact.All(nil) {
			reg.Add(tl)
		}
		s := config.Default()
		s.AutoCondense = true
		return Deps{Provider: openai.New(openai.Config{BaseURL: server.URL(), APIKey: "k"}),
			Model: "act-big", ModelInfo: act, PlanModel: "plan-small", PlanModelInfo: plan,
			Registry: reg, Host: direct.New("", []string{root}), Files: ws, Settings: s, Turns: turns,
			Sleep: func(context.Context, time.Duration) error { return nil }}, nil
	})
	t.Cleanup(func() { mgr.CloseAll(context.Background()) })

	tk, err := mgr.New(context.Background(), Options{Workspace: []string{root}, Mode: ModePlan}, "plan it", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	waitAsk(t, tk, msg.AskPlanModeRespond)
	if s := tk.State(); s.Model != "plan-small" || s.ContextWindow != 8_000 || s.PricesKnown {
		t.Errorf("PLAN header: model %q, window %d, prices known %v", s.Model, s.ContextWindow, s.PricesKnown)
	}
	for _, text := range []string{"go on", "and on"} {
		if _, err := tk.Continue(text, nil); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the next PLAN answer", func() bool { return len(server.Requests()) >= 2 && tk.OpenAsk() == msg.AskPlanModeRespond })
	}
	waitFor(t, "three PLAN requests", func() bool { return len(server.Requests()) == 3 && tk.OpenAsk() == msg.AskPlanModeRespond })
	if err := tk.SetMode(ModeAct); err != nil {
		t.Fatal(err)
	}
	waitAsk(t, tk, msg.AskCompletionResult)
	if err := server.Err(); err != nil {
		t.Fatal(err)
	}
	if s := tk.State(); s.Model != "act-big" || s.ContextWindow != 128_000 || !s.PricesKnown {
		t.Errorf("ACT header: model %q, window %d, prices known %v", s.Model, s.ContextWindow, s.PricesKnown)
	}

	reqs := server.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, r := range reqs[:3] {
		if len(r.Tools) != 0 {
			t.Errorf("PLAN request %d has native tools %v: the PLAN model takes XML only", i+1, r.Tools)
		}
	}
	var names []string
	names = append(names, reqs[3].Tools...)
	if !strings.Contains(strings.Join(names, ","), "take_screenshot") {
		t.Errorf("the ACT model sees images but was not offered the screenshot tool: %v", names)
	}
	condense := func(r llmtest.Request) bool {
		for i := len(r.Messages) - 1; i >= 0; i-- {
			if r.Messages[i].Role == "user" {
				return strings.Contains(r.Messages[i].Text, `type="auto_condense"`)
			}
		}
		return false
	}
	if !condense(reqs[2]) {
		t.Error("7k of an 8k PLAN window did not ask to condense")
	}
	if condense(reqs[3]) {
		t.Error("7k of a 128k ACT window asked to condense")
	}
	turns.mu.Lock()
	defer turns.mu.Unlock()
	wantWindows := []int{8_000, 8_000, 8_000, 128_000}
	for i, w := range wantWindows {
		if i >= len(turns.windows) || turns.windows[i] != w {
			t.Fatalf("projection windows %v, want %v", turns.windows, wantWindows)
		}
		if i >= len(turns.env) || turns.env[i] != int64(w) {
			t.Fatalf("environment details windows %v, want %v", turns.env, wantWindows)
		}
	}
	for i, info := range turns.prompts {
		if want := i == 3; info.NativeTools() != want || info.SupportsImages != want {
			t.Errorf("system prompt %d rendered for native=%v images=%v", i+1, info.NativeTools(), info.SupportsImages)
		}
	}
}

// ForModel keeps the tools that need images from a model that cannot see them.
func TestForModelDropsImageTools(t *testing.T) {
	specs := []tools.Spec{{Name: "read_file"}, screenshotTool{}.Spec()}
	if got := tools.ForModel(specs, false); len(got) != 1 || got[0].Name != "read_file" {
		t.Errorf("without images: %v", got)
	}
	if got := tools.ForModel(specs, true); len(got) != 2 {
		t.Errorf("with images: %v", got)
	}
}
