package acp_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/core/store"
	"github.com/cairnhq/cairn/server/servertest"
)

func run(line string) string {
	return "<execute_command>\n<command>" + line + "</command>\n<requires_approval>false</requires_approval>\n</execute_command>"
}

// An "always" answer to a command becomes an allow rule of the task's session layer of the
// policy (docs/settings.md, "Policy files"), saved in the task's header: the task runs the
// same program and subcommand again without asking, asks another, and its own approval
// settings stay as they were.
func TestAllowAlwaysIsASessionRule(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: run("git init -q one")},
		{Text: run("git init -q two")},
		{Text: run("git tag v1")},
		{Text: complete},
	}}, servertest.Options{Settings: func(s *config.Settings) { s.SandboxOff = true }})
	h := connect(t, e, "allow_always")
	s, err := h.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.Workspace, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	h.sid = s.SessionId
	if r := h.prompt(t, sdk.TextBlock("make two repositories and tag")); r != sdk.StopReasonEndTurn {
		t.Fatalf("turn ended with %q", r)
	}
	_, asks := h.ed.snapshot()
	var titles []string
	for _, a := range asks {
		titles = append(titles, *a.ToolCall.Title)
	}
	if want := []string{"Run `git init -q one`", "Run `git tag v1`"}; !slices.Equal(titles, want) {
		t.Fatalf("permission requests %q, want %q (the second git init runs by the session's rule)", titles, want)
	}
	st, err := store.Open(e.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	metas, err := st.List()
	if err != nil || len(metas) != 1 {
		t.Fatalf("tasks %+v, %v", metas, err)
	}
	m := metas[0]
	if got, err := st.Read(m.ID); err != nil {
		t.Fatal(err)
	} else {
		m = got.Meta
	}
	want := []config.SessionRule{{Command: "git init"}, {Command: "git tag"}}
	if !slices.Equal(m.SessionRules, want) {
		t.Errorf("session rules %+v, want %+v", m.SessionRules, want)
	}
	if o := m.Overrides; o != nil && o.AutoApprove != nil && len(o.AutoApprove.AllowList) > 0 {
		t.Errorf("the task's own allow list grew: %q", strings.Join(o.AutoApprove.AllowList, ", "))
	}
	h.llmOK(t)
}
