package server_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// TestRulesRPCs creates, lists, toggles and deletes a workspace rule, and checks that the
// system prompt follows the toggle.
func TestRulesRPCs(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: complete, Expect: &llmtest.Expect{Contains: []string{"Always write table tests."}}},
		{Text: complete, Expect: &llmtest.Expect{NotContains: []string{"Always write table tests."}}},
	}}, servertest.Options{})
	ctx := context.Background()
	created, err := e.Files.CreateRule(ctx, &cairnv1.CreateRuleRequest{WorkspaceRoot: e.Workspace, Name: "testing.md", Content: "Always write table tests.\n"})
	if err != nil {
		t.Fatal(err)
	}
	path := created.GetRule().GetPath()
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.Workspace, filepath.FromSlash(path))
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "Always write table tests.\n" {
		t.Fatalf("rule file %s = %q, %v", path, b, err)
	}
	if _, err := e.Files.CreateRule(ctx, &cairnv1.CreateRuleRequest{WorkspaceRoot: e.Workspace, Name: "testing.md", Content: "x"}); status.Code(err) != codes.AlreadyExists {
		t.Fatalf("second create: %v, want AlreadyExists", err)
	}
	if _, err := e.Files.CreateRule(ctx, &cairnv1.CreateRuleRequest{WorkspaceRoot: e.Workspace, Name: "../evil.md", Content: "x"}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("bad name: %v, want InvalidArgument", err)
	}
	list, err := e.Files.ListRules(ctx, &cairnv1.ListRulesRequest{WorkspaceRoot: e.Workspace})
	if err != nil || len(list.GetRules()) != 1 || !list.GetRules()[0].GetEnabled() {
		t.Fatalf("ListRules = %v, %v", list, err)
	}
	id := list.GetRules()[0].GetId()

	w := e.Watch(e.NewTask("first", "", act))
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if _, err := e.Files.ToggleRule(ctx, &cairnv1.ToggleRuleRequest{Id: id, Enabled: false}); err != nil {
		t.Fatal(err)
	}
	w2 := e.Watch(e.NewTask("second", "", act))
	w2.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}

	if _, err := e.Files.DeleteRule(ctx, &cairnv1.DeleteRuleRequest{WorkspaceRoot: e.Workspace, Id: id}); err != nil {
		t.Fatal(err)
	}
	if list, _ := e.Files.ListRules(ctx, &cairnv1.ListRulesRequest{WorkspaceRoot: e.Workspace}); len(list.GetRules()) != 0 {
		t.Fatalf("rules after delete: %v", list.GetRules())
	}
	if _, err := e.Files.DeleteRule(ctx, &cairnv1.DeleteRuleRequest{WorkspaceRoot: e.Workspace, Id: id}); status.Code(err) != codes.NotFound {
		t.Fatalf("second delete: %v, want NotFound", err)
	}
}
