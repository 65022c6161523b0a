package hostbridge

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	hostv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/host/v1"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/llm/vscodelm"
)

// lmEditor is an editor offering language models. play answers each lm_chat after the host
// has taken it: it gets the request and a function that sends events back. Every request the
// daemon sends is recorded on seen.
type lmEditor struct {
	*fakeEditor
	seen chan *hostv1.Request
}

func connectLM(t *testing.T, r *Registry, clientID string, play func(req *hostv1.LmChatRequest, emit func(*hostv1.Event))) *lmEditor {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeEditor{in: make(chan *cairnv1.ConnectRequest, 64), out: make(chan *cairnv1.ConnectResponse, 64), ctx: ctx}
	e := &lmEditor{fakeEditor: f, seen: make(chan *hostv1.Request, 64)}
	served := make(chan struct{})
	t.Cleanup(func() {
		cancel()
		<-served
	})
	f.in <- &cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Hello{Hello: &hostv1.Hello{
		Client: "test", ClientId: clientID, LanguageModels: true}}}
	go func() {
		defer close(served)
		if err := r.Serve(f); err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	<-f.out // welcome
	send := func(m *cairnv1.ConnectRequest) {
		select {
		case f.in <- m:
		case <-ctx.Done():
		}
	}
	emit := func(ev *hostv1.Event) {
		send(&cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Event{Event: ev}})
	}
	go func() {
		for {
			select {
			case m := <-f.out:
				req := m.GetRequest()
				if req == nil {
					continue
				}
				e.seen <- req
				resp := &hostv1.Response{Id: req.GetId(), Result: &hostv1.Response_Empty{Empty: &hostv1.Empty{}}}
				if req.GetLmModels() != nil {
					resp.Result = &hostv1.Response_LmModels{LmModels: &hostv1.LmModelsResult{Models: []*hostv1.LmModel{
						{Id: "gpt-4o", Vendor: "copilot", Family: "gpt-4o", Name: "GPT-4o", MaxInputTokens: 64000}}}}
				}
				send(&cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Response{Response: resp}})
				if c := req.GetLmChat(); c != nil && play != nil {
					go play(c, emit)
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return e
}

func lmText(id, s string) *hostv1.Event {
	return &hostv1.Event{Event: &hostv1.Event_LmPart{LmPart: &hostv1.LmChatPart{ChatId: id, Part: &hostv1.LmChatPart_Text{Text: s}}}}
}

func lmEnd(e *hostv1.LmChatEnd) *hostv1.Event {
	return &hostv1.Event{Event: &hostv1.Event_LmEnd{LmEnd: e}}
}

// next returns the next request the editor saw that matches.
func (e *lmEditor) next(t *testing.T, match func(*hostv1.Request) bool) *hostv1.Request {
	t.Helper()
	for req := range e.seen {
		if match(req) {
			return req
		}
	}
	t.Fatal("the editor's requests ended")
	return nil
}

func TestLanguageModelChatStreamsThroughTheBridge(t *testing.T) {
	r := NewRegistry("test")
	ed := connectLM(t, r, "window-1", func(c *hostv1.LmChatRequest, emit func(*hostv1.Event)) {
		emit(lmText(c.GetChatId(), "Writing "))
		emit(lmText(c.GetChatId(), "the file."))
		emit(&hostv1.Event{Event: &hostv1.Event_LmPart{LmPart: &hostv1.LmChatPart{ChatId: c.GetChatId(),
			Part: &hostv1.LmChatPart_ToolCall{ToolCall: &hostv1.LmToolCall{CallId: "tc-1", Name: "write_to_file",
				InputJson: `{"path":"hello.txt","content":"hi"}`}}}}})
		emit(lmEnd(&hostv1.LmChatEnd{ChatId: c.GetChatId(), InputTokens: 900, OutputTokens: 30, Estimated: true}))
	})
	p := vscodelm.New(r.Ref("window-1", fallbackHost{&countingDiffs{}}))
	req := llm.Request{Model: "gpt-4o", System: "You are Cairn.",
		Tools: []llm.ToolDef{{Name: "write_to_file", Description: "writes", Parameters: []byte(`{"type":"object"}`)}},
		Messages: []llm.Message{
			{Role: llm.RoleUser, Content: []llm.Content{llm.Text("write hello.txt")}},
			{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{{ID: "tc-0", Name: "list_files", Arguments: `{"path":"."}`}}},
			{Role: llm.RoleUser, Content: []llm.Content{llm.ToolResult("tc-0", "(empty)")}},
		}}
	st, err := p.Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	}()
	var text strings.Builder
	var calls llm.ToolCalls
	var usage *llm.Usage
	for {
		c, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(c.Text)
		for _, d := range c.ToolCalls {
			calls.Add(d)
		}
		if c.Usage != nil {
			usage = c.Usage
		}
	}
	if text.String() != "Writing the file." {
		t.Errorf("text %q", text.String())
	}
	if got := calls.Calls(); len(got) != 1 || got[0] != (llm.ToolCall{ID: "tc-1", Name: "write_to_file", Arguments: `{"path":"hello.txt","content":"hi"}`}) {
		t.Errorf("calls %#v", got)
	}
	if usage == nil || *usage != (llm.Usage{InputTokens: 900, OutputTokens: 30, Estimated: true}) {
		t.Errorf("usage %#v", usage)
	}
	sent := ed.next(t, func(r *hostv1.Request) bool { return r.GetLmChat() != nil }).GetLmChat()
	sent.ChatId = ""
	want := &hostv1.LmChatRequest{ModelId: "gpt-4o",
		Tools: []*hostv1.LmTool{{Name: "write_to_file", Description: "writes", InputSchemaJson: `{"type":"object"}`}},
		Messages: []*hostv1.LmMessage{
			{Role: hostv1.LmRole_LM_ROLE_USER, Parts: []*hostv1.LmPart{
				{Part: &hostv1.LmPart_Text{Text: vscodelm.MapRequest(llm.Request{System: "You are Cairn."}).Messages[0].Parts[0].Text}},
				{Part: &hostv1.LmPart_Text{Text: "write hello.txt"}}}},
			{Role: hostv1.LmRole_LM_ROLE_ASSISTANT, Parts: []*hostv1.LmPart{{Part: &hostv1.LmPart_ToolCall{ToolCall: &hostv1.LmToolCall{
				CallId: "tc-0", Name: "list_files", InputJson: `{"path":"."}`}}}}},
			{Role: hostv1.LmRole_LM_ROLE_USER, Parts: []*hostv1.LmPart{{Part: &hostv1.LmPart_ToolResult{ToolResult: &hostv1.LmToolResult{
				CallId: "tc-0", Text: "(empty)"}}}}},
		}}
	if !proto.Equal(sent, want) {
		t.Errorf("the editor got\n%v\nwant\n%v", sent, want)
	}
}

func TestLanguageModelChatCancelReachesTheEditor(t *testing.T) {
	r := NewRegistry("test")
	started := make(chan string, 1)
	ed := connectLM(t, r, "window-1", func(c *hostv1.LmChatRequest, emit func(*hostv1.Event)) {
		emit(lmText(c.GetChatId(), "thinking"))
		started <- c.GetChatId()
		// and nothing more until cancelled
	})
	ctx, cancel := context.WithCancel(context.Background())
	st, err := vscodelm.New(r.Ref("window-1", nil)).Stream(ctx, llm.Request{Model: "gpt-4o"})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := st.Recv(); err != nil || c.Text != "thinking" {
		t.Fatalf("first chunk %#v, %v", c, err)
	}
	id := <-started
	cancel()
	if _, err := st.Recv(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Recv after cancel: %v; want context.Canceled", err)
	}
	got := ed.next(t, func(r *hostv1.Request) bool { return r.GetLmCancel() != nil }).GetLmCancel()
	if got.GetChatId() != id {
		t.Fatalf("cancelled chat %q; want %q", got.GetChatId(), id)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestLanguageModelChatCloseBeforeTheEndCancels(t *testing.T) {
	r := NewRegistry("test")
	ed := connectLM(t, r, "window-1", func(c *hostv1.LmChatRequest, emit func(*hostv1.Event)) {
		emit(lmText(c.GetChatId(), "partial"))
	})
	st, err := vscodelm.New(r.Ref("window-1", nil)).Stream(context.Background(), llm.Request{Model: "gpt-4o"})
	if err != nil {
		t.Fatal(err)
	}
	chat := ed.next(t, func(r *hostv1.Request) bool { return r.GetLmChat() != nil }).GetLmChat().GetChatId()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if got := ed.next(t, func(r *hostv1.Request) bool { return r.GetLmCancel() != nil }).GetLmCancel().GetChatId(); got != chat {
		t.Fatalf("cancelled %q; want %q", got, chat)
	}
}

func TestLanguageModelErrorCodes(t *testing.T) {
	for _, tt := range []struct {
		code hostv1.LmErrorCode
		want vscodelm.Code
		is   error
	}{
		{hostv1.LmErrorCode_LM_ERROR_CODE_NO_PERMISSIONS, vscodelm.CodeNoPermissions, llm.ErrForbidden},
		{hostv1.LmErrorCode_LM_ERROR_CODE_BLOCKED, vscodelm.CodeBlocked, llm.ErrForbidden},
		{hostv1.LmErrorCode_LM_ERROR_CODE_NOT_FOUND, vscodelm.CodeNotFound, llm.ErrNotFound},
		{hostv1.LmErrorCode_LM_ERROR_CODE_GONE, vscodelm.CodeGone, llm.ErrNotFound},
	} {
		t.Run(tt.code.String(), func(t *testing.T) {
			r := NewRegistry("test")
			connectLM(t, r, "w", func(c *hostv1.LmChatRequest, emit func(*hostv1.Event)) {
				emit(lmEnd(&hostv1.LmChatEnd{ChatId: c.GetChatId(), Code: tt.code, Message: "from the editor"}))
			})
			st, err := vscodelm.New(r.Ref("w", nil)).Stream(context.Background(), llm.Request{Model: "gpt-4o"})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := st.Close(); err != nil {
					t.Error(err)
				}
			}()
			_, err = st.Recv()
			var lerr *vscodelm.Error
			if !errors.As(err, &lerr) || lerr.Code != tt.want || !errors.Is(err, tt.is) || !strings.Contains(err.Error(), "from the editor") {
				t.Fatalf("error %v; want code %s", err, tt.want)
			}
		})
	}
}

func TestLanguageModelChatEndsWhenTheEditorLeaves(t *testing.T) {
	r := NewRegistry("test")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := &fakeEditor{in: make(chan *cairnv1.ConnectRequest, 8), out: make(chan *cairnv1.ConnectResponse, 8), ctx: ctx}
	f.in <- &cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Hello{Hello: &hostv1.Hello{ClientId: "w", LanguageModels: true}}}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := r.Serve(f); err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	<-f.out
	type result struct {
		st  vscodelm.ReplyStream
		err error
	}
	got := make(chan result, 1)
	go func() {
		st, err := r.Ref("w", nil).Chat(context.Background(), vscodelm.ChatRequest{Model: "m"})
		got <- result{st, err}
	}()
	req := (<-f.out).GetRequest()
	f.in <- &cairnv1.ConnectRequest{Message: &cairnv1.ConnectRequest_Response{Response: &hostv1.Response{Id: req.GetId(),
		Result: &hostv1.Response_Empty{Empty: &hostv1.Empty{}}}}}
	res := <-got
	if res.err != nil {
		t.Fatal(res.err)
	}
	cancel() // the window closes
	<-served
	if _, err := res.st.Recv(); !errors.Is(err, ErrHostGone) {
		t.Fatalf("Recv after the editor left: %v; want ErrHostGone", err)
	}
	if err := res.st.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestLanguageModelsNeedAnEditorThatOffersThem(t *testing.T) {
	r := NewRegistry("test")
	if _, err := r.Ref("nobody", nil).Chat(context.Background(), vscodelm.ChatRequest{}); !errors.Is(err, vscodelm.ErrEditorAway) {
		t.Fatalf("no editor: %v", err)
	}
	connect(t, r, "old") // a hello without language_models
	if _, err := r.Ref("old", nil).Models(context.Background()); !errors.Is(err, ErrNoLanguageModels) {
		t.Fatalf("editor without models: %v", err)
	}
	connectLM(t, r, "new", nil)
	ms, err := r.Ref("new", nil).Models(context.Background())
	if err != nil || len(ms) != 1 || ms[0] != (vscodelm.Model{ID: "gpt-4o", Vendor: "copilot", Family: "gpt-4o", Name: "GPT-4o", MaxInputTokens: 64000}) {
		t.Fatalf("models %#v, %v", ms, err)
	}
}
