package server_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hostv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/host/v1"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/llm/presets"
)

// scriptedModel plays the editor model of these tests: a task saying LM-SLOW gets text until
// the chat is cancelled; otherwise a write_to_file call, then, once its result came back, an
// attempt_completion call.
var scriptedModel = &servertest.EditorModel{
	Model: &hostv1.LmModel{Id: "scripted", Vendor: "test-vendor", Family: "scripted", Name: "Scripted", MaxInputTokens: 32_000},
	Play: func(req *hostv1.LmChatRequest, send func(*hostv1.LmChatPart), cancelled <-chan struct{}) *hostv1.LmChatEnd {
		text := func(s string) { send(&hostv1.LmChatPart{Part: &hostv1.LmChatPart_Text{Text: s}}) }
		call := func(id, name, input string) {
			send(&hostv1.LmChatPart{Part: &hostv1.LmChatPart_ToolCall{ToolCall: &hostv1.LmToolCall{CallId: id, Name: name, InputJson: input}}})
		}
		if strings.Contains(allText(req), "LM-SLOW") {
			text("counting slowly: ")
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-cancelled:
					return &hostv1.LmChatEnd{Code: hostv1.LmErrorCode_LM_ERROR_CODE_CANCELLED}
				case <-tick.C:
					text(".")
				}
			}
		}
		last := req.GetMessages()[len(req.GetMessages())-1]
		if last.GetParts()[0].GetToolResult() == nil {
			text("Writing the greeting.")
			call("c1", "write_to_file", `{"path":"lm-hello.txt","content":"hello from the editor's model\n"}`)
		} else {
			call("c2", "attempt_completion", `{"result":"Wrote lm-hello.txt."}`)
		}
		return &hostv1.LmChatEnd{InputTokens: 1500, OutputTokens: 40, Estimated: true}
	},
}

func allText(req *hostv1.LmChatRequest) string {
	var b strings.Builder
	for _, m := range req.GetMessages() {
		for _, p := range m.GetParts() {
			b.WriteString(p.GetText())
		}
	}
	return b.String()
}

func editorModelSettings(s *config.Settings) {
	s.API.Preset, s.API.Model, s.API.BaseURL, s.API.APIKey = presets.VSCodeLM, "scripted", "", ""
	s.AutoApprove = config.AutoApprove{Enabled: true, ReadFiles: true, EditFiles: true}
	s.TaskLimits.MaxCost = 1
}

// A task on the editor's model, through the real daemon and its host bridge: the model's text
// streams, its native write_to_file is saved in the editor, its attempt_completion ends the
// task; the header state has no price and names the model by vendor and family; a cost limit
// is said not to apply.
func TestEditorModelTaskWritesAndCompletes(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{}, servertest.Options{Settings: editorModelSettings})
	h := e.ConnectLMHost("window-1", scriptedModel)
	models, err := e.State.ListModels(context.Background(), &cairnv1.ListModelsRequest{Preset: presets.VSCodeLM, HostId: h.ID})
	if err != nil || len(models.GetEntries()) != 1 || models.GetEntries()[0].GetVendor() != "test-vendor" || models.GetEntries()[0].GetContextWindow() != 32_000 {
		t.Fatalf("ListModels: %v, %v", models, err)
	}
	id := e.NewTask("Write the greeting.", h.ID, cairnv1.Mode_MODE_ACT)
	w := e.Watch(id)
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	b, err := os.ReadFile(filepath.Join(e.Workspace, "lm-hello.txt"))
	if err != nil || string(b) != "hello from the editor's model\n" {
		t.Fatalf("lm-hello.txt: %q, %v", b, err)
	}
	st := w.State()
	if !st.GetIncluded() || st.GetModelLabel() != "test-vendor · scripted" || st.GetContextWindow() != 32_000 || st.GetCost() != 0 {
		t.Errorf("state included %v label %q window %d cost %v", st.GetIncluded(), st.GetModelLabel(), st.GetContextWindow(), st.GetCost())
	}
	var said, streamed bool
	for _, m := range w.Messages() {
		said = said || strings.Contains(m.GetText(), "does not apply to this task")
		streamed = streamed || strings.Contains(m.GetText(), "Writing the greeting.")
	}
	if !said || !streamed {
		t.Errorf("cost limit said not to apply %v; the model's text shown %v", said, streamed)
	}
	reqs := h.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d chat requests, want 2", len(reqs))
	}
	first := reqs[0].GetMessages()[0]
	if first.GetRole() != hostv1.LmRole_LM_ROLE_USER || !strings.HasPrefix(first.GetParts()[0].GetText(), "<system_instructions>") {
		t.Errorf("the system prompt does not lead the first user message: %v", first.GetParts()[0])
	}
	var tools []string
	for _, tl := range reqs[0].GetTools() {
		tools = append(tools, tl.GetName())
	}
	if !strings.Contains(strings.Join(tools, ","), "write_to_file") {
		t.Errorf("tools offered: %v", tools)
	}
	second := reqs[1].GetMessages()
	if r := second[len(second)-1].GetParts()[0].GetToolResult(); r.GetCallId() != "c1" {
		t.Errorf("the second request does not answer the call first: %v", second[len(second)-1])
	}
}

// Cancelling a task while the editor's model streams cancels the chat in the editor.
func TestEditorModelCancelReachesTheEditor(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{}, servertest.Options{Settings: editorModelSettings})
	h := e.ConnectLMHost("window-1", scriptedModel)
	id := e.NewTask("LM-SLOW: count slowly.", h.ID, cairnv1.Mode_MODE_ACT)
	w := e.Watch(id)
	w.Until("the model's text", func(msgs []*cairnv1.Message, _ *cairnv1.TaskState) bool {
		for _, m := range msgs {
			if strings.Contains(m.GetText(), "counting slowly: ...") {
				return true
			}
		}
		return false
	})
	if _, err := e.Tasks.CancelTask(context.Background(), &cairnv1.CancelTaskRequest{TaskId: id}); err != nil {
		t.Fatal(err)
	}
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_RESUME_TASK)
	chat := h.Requests()[0].GetChatId()
	deadline := time.Now().Add(servertest.Timeout)
	for !h.Cancelled(chat) {
		if time.Now().After(deadline) {
			t.Fatal("the editor never got the chat's cancel")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The editor's models need the editor: a task without a host is refused with the one message.
func TestEditorModelTaskWithoutEditorIsRefused(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{}, servertest.Options{Settings: editorModelSettings})
	_, err := e.Tasks.NewTask(context.Background(), &cairnv1.NewTaskRequest{Text: "hi", WorkspaceRoots: []string{e.Workspace}})
	if err == nil || !strings.Contains(err.Error(), "works only for tasks started in VS Code") {
		t.Fatalf("NewTask without an editor: %v", err)
	}
}
