package server_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
	"github.com/cairnhq/cairn/server/servertest"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// workspaceHook returns the workspace's hook of kind from ListHooks (nil when missing).
func workspaceHook(t *testing.T, e *servertest.Env, kind string) (*cairnv1.HookEntry, *cairnv1.ListHooksResponse) {
	t.Helper()
	list, err := e.Files.ListHooks(context.Background(), &cairnv1.ListHooksRequest{WorkspaceRoot: e.Workspace})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range list.GetHooks() {
		if !h.GetGlobal() && h.GetKind() == kind {
			return h, list
		}
	}
	return nil, list
}

// TestHooksRPCs walks a hook through the settings view's life: found and new (a task skips it
// and says so), enabled and trusted (a task runs it; its last run is listed), changed (listed
// with its diff, skipped again), and a trust of content the user did not review refused.
func TestHooksRPCs(t *testing.T) {
	e := servertest.Start(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: complete},
		{Text: complete, Expect: &llmtest.Expect{Contains: []string{"Started by the hook."}}},
	}}, servertest.Options{})
	ctx := context.Background()
	dir := filepath.Join(e.Workspace, ".clinerules", "hooks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "TaskStart")
	script := "#!/bin/sh\necho '{\"contextModification\": \"Started by the hook.\"}'\n"
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}

	h, list := workspaceHook(t, e, "TaskStart")
	if h == nil || h.GetStatus() != cairnv1.HookStatus_HOOK_STATUS_NEW || list.GetWorkspaceEnabled() ||
		h.GetName() != ".clinerules/hooks/TaskStart" || !strings.Contains(h.GetDiff(), "+echo '{\"contextModification\"") {
		t.Fatalf("new hook = %v (list %v)", h, list)
	}
	w := e.Watch(e.NewTask("first", "", act))
	w.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if !hasSay(w.Messages(), cairnv1.SayKind_SAY_KIND_HOOK, "hooks are not enabled for this workspace") {
		t.Errorf("no skip row: %v", w.Messages())
	}

	if _, err := e.Files.EnableHooks(ctx, &cairnv1.EnableHooksRequest{WorkspaceRoot: e.Workspace, Enabled: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Files.TrustHook(ctx, &cairnv1.TrustHookRequest{WorkspaceRoot: e.Workspace, Path: path, Sha256: h.GetCurrentSha256()}); err != nil {
		t.Fatal(err)
	}
	w2 := e.Watch(e.NewTask("second", "", act))
	w2.UntilAsk(cairnv1.AskKind_ASK_KIND_COMPLETION_RESULT)
	if err := e.LLM.Err(); err != nil {
		t.Fatal(err)
	}
	h, _ = workspaceHook(t, e, "TaskStart")
	if h.GetStatus() != cairnv1.HookStatus_HOOK_STATUS_TRUSTED || h.GetDiff() != "" || h.GetLastRun().GetEvent() != "TaskStart" ||
		!strings.Contains(h.GetLastRun().GetStdout(), "Started by the hook.") {
		t.Fatalf("trusted hook = %v", h)
	}

	if err := os.WriteFile(path, []byte(script+"touch pwned\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	changed, _ := workspaceHook(t, e, "TaskStart")
	if changed.GetStatus() != cairnv1.HookStatus_HOOK_STATUS_CHANGED || !strings.Contains(changed.GetDiff(), "+touch pwned") {
		t.Fatalf("changed hook = %v", changed)
	}
	_, err := e.Files.TrustHook(ctx, &cairnv1.TrustHookRequest{WorkspaceRoot: e.Workspace, Path: path, Sha256: h.GetCurrentSha256()})
	if status.Code(err) != codes.FailedPrecondition {
		t.Errorf("trusting the old review of a changed file: %v, want FailedPrecondition", err)
	}
	_, err = e.Files.TrustHook(ctx, &cairnv1.TrustHookRequest{WorkspaceRoot: e.Workspace, Path: filepath.Join(e.Workspace, "notahook")})
	if status.Code(err) != codes.NotFound {
		t.Errorf("trusting a file that is not a hook: %v, want NotFound", err)
	}
	if _, err := e.Files.ToggleHook(ctx, &cairnv1.ToggleHookRequest{WorkspaceRoot: e.Workspace, Path: path, Enabled: false}); err != nil {
		t.Fatal(err)
	}
	if off, _ := workspaceHook(t, e, "TaskStart"); off.GetEnabled() {
		t.Error("the hook is still on")
	}
}

func hasSay(msgs []*cairnv1.Message, kind cairnv1.SayKind, text string) bool {
	for _, m := range msgs {
		if m.GetSay() == kind && strings.Contains(m.GetText(), text) {
			return true
		}
	}
	return false
}
