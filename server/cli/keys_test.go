//go:build unix

package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	cairnv1 "github.com/cairnhq/cairn/server/internal/gen/cairn/v1"
)

// buildCairn builds the cairn binary for tests that must run it as its own process.
func buildCairn(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cairn")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/cairnhq/cairn/server/cmd/cairn")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building cairn: %v\n%s", err, out)
	}
	return bin
}

// authModel is a scripted model that also records the Authorization header of each request.
type authModel struct {
	*llmtest.Server
	url string

	mu    sync.Mutex
	auths []string
}

func newAuthModel(t *testing.T, script llmtest.Script) *authModel {
	m := &authModel{Server: llmtest.NewHandler(script)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			m.mu.Lock()
			m.auths = append(m.auths, r.Header.Get("Authorization"))
			m.mu.Unlock()
		}
		m.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		m.Close()
		srv.Close()
	})
	m.url = srv.URL + "/v1"
	return m
}

func (m *authModel) authorizations() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.auths)
}

// readParent is a command that prints what it can read of the process that started it. In
// the command sandbox the process that started it is the launcher, and no Cairn process is
// visible at all (docs/sandbox.md); these tests are about what Cairn's own processes hold,
// which is what a command sees where the sandbox is off, so they run with --no-sandbox (the
// daemon's test: the sandboxDisabled setting).
const readParent = `cat /proc/$PPID/environ /proc/$PPID/cmdline | tr '\0' '\n'`

// parentScript runs command and then completes; the tool result is what the model was told.
func parentScript(command string) llmtest.Script {
	return llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<execute_command>\n<command>" + command + "</command>\n<requires_approval>false</requires_approval>\n</execute_command>"},
		{Text: "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>"},
	}}
}

// commandResult is the text the model got back for the script's command.
func commandResult(t *testing.T, m *llmtest.Server) string {
	t.Helper()
	reqs := m.Requests()
	if len(reqs) < 2 {
		t.Fatalf("the model got %d requests, want 2", len(reqs))
	}
	return reqs[1].LastUser()
}

// TestRunKeysNotInParentProcess runs `cairn run` as its own process, with the key both in the
// environment and as --api-key, and has the model run a command that prints its parent's
// environment and command line: neither key may be there, while the model's requests still
// carry the flag's key.
func TestRunKeysNotInParentProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc on this system")
	}
	bin := buildCairn(t)
	m := newAuthModel(t, parentScript(readParent))
	ws := t.TempDir()
	cmd := exec.Command(bin, "run", "--no-sandbox", "-C", ws, "--data-dir", t.TempDir(), "--base-url", m.url,
		"--api-key", "sk-test-SECRET2", "--model", "m", "--auto-approve", "command", "show the parent")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "CAIRN_API_KEY=sk-test-SECRET",
		"OPENAI_API_KEY=", "KEYTEST_MARKER=visible", "CAIRN_DEBUG=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("cairn run: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	if err := m.Err(); err != nil {
		t.Fatal(err)
	}
	got := commandResult(t, m.Server)
	// The command really read its parent: an ordinary variable and the flags are there.
	for _, want := range []string{"KEYTEST_MARKER=visible", "--base-url", "--auto-approve"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the command's output lacks %q; it did not read its parent:\n%s", want, got)
		}
	}
	for _, secret := range []string{"sk-test-SECRET", "--api-key", "CAIRN_API_KEY"} {
		if strings.Contains(got, secret) {
			t.Errorf("the model was shown %q from the parent process:\n%s", secret, got)
		}
	}
	if strings.Contains(out.String(), "sk-test-SECRET") {
		t.Errorf("the printed transcript shows a key:\n%s", out.String())
	}
	for _, a := range m.authorizations() {
		if a != "Bearer sk-test-SECRET2" {
			t.Errorf("a request was sent with Authorization %q, want the --api-key's key", a)
		}
	}
	if len(m.authorizations()) != 2 {
		t.Errorf("%d requests reached the model, want 2", len(m.authorizations()))
	}
}

// TestRunEnvKeyReachesModel: with the key only in the environment, the re-started process
// still sends it, and the command does not see it.
func TestRunEnvKeyReachesModel(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc on this system")
	}
	bin := buildCairn(t)
	m := newAuthModel(t, parentScript("env; "+readParent))
	cmd := exec.Command(bin, "run", "-C", t.TempDir(), "--data-dir", t.TempDir(), "--base-url", m.url,
		"--model", "m", "--yolo", "show the environment")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "OPENAI_API_KEY=sk-test-ENVONLY",
		"CAIRN_API_KEY=", "MY_LLM_TOKEN=sk-test-ENVONLY", "KEYTEST_MARKER=visible", "CAIRN_DEBUG=")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("cairn run: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	got := commandResult(t, m.Server)
	if !strings.Contains(got, "KEYTEST_MARKER=visible") {
		t.Fatalf("the command's output lacks the ordinary variable:\n%s", got)
	}
	for _, secret := range []string{"sk-test-ENVONLY", "MY_LLM_TOKEN"} {
		if strings.Contains(got, secret) {
			t.Errorf("the model was shown %q:\n%s", secret, got)
		}
	}
	if a := m.authorizations(); len(a) == 0 || a[0] != "Bearer sk-test-ENVONLY" {
		t.Errorf("Authorization headers %q, want the environment's key", a)
	}
}

// TestServeKeysNotInParentProcess starts `cairn serve` as the extension does (a key variable
// in the environment it inherits, which it must shed; the key itself sent over gRPC), runs a
// command through a task, and checks the daemon's environment and command line as the command
// sees them.
func TestServeKeysNotInParentProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc on this system")
	}
	bin := buildCairn(t)
	m := newAuthModel(t, parentScript("env; echo PARENT-FOLLOWS; "+readParent))
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "settings.json"), []byte(`{"sandboxDisabled": true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "serve", "--data-dir", data, "--idle-exit", "0", "--stdin-lifeline")
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "OPENAI_API_KEY=sk-test-INHERITED",
		"CAIRN_API_KEY=", "KEYTEST_MARKER=visible", "CAIRN_DEBUG=", "MY_LLM_TOKEN=sk-test-OVERRPC")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Closing stdin ends the daemon (--stdin-lifeline).
		if err := stdin.Close(); err != nil {
			t.Errorf("closing the daemon's stdin: %v", err)
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("cairn serve: %v\n%s", err, errb.String())
		}
	})
	var hs struct {
		Address   string `json:"address"`
		TokenFile string `json:"token_file"`
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || json.Unmarshal([]byte(line), &hs) != nil {
		t.Fatalf("no handshake (%v): %q\n%s", err, line, errb.String())
	}
	c, err := dial(hs.Address, hs.TokenFile)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st, err := c.state.GetState(ctx, &cairnv1.GetStateRequest{})
	if err != nil {
		t.Fatal(err)
	}
	settings := st.GetSettings()
	settings.Api = &cairnv1.ApiConfig{BaseUrl: m.url, ApiKey: "sk-test-OVERRPC", Model: "m"}
	settings.AutoApprove.Enabled, settings.AutoApprove.AllCommands = true, true
	if _, err := c.state.UpdateSettings(ctx, &cairnv1.UpdateSettingsRequest{Settings: settings}); err != nil {
		t.Fatal(err)
	}
	resp, err := c.tasks.NewTask(ctx, &cairnv1.NewTaskRequest{Text: "show the parent", WorkspaceRoots: []string{t.TempDir()}, Mode: cairnv1.Mode_MODE_ACT})
	if err != nil {
		t.Fatal(err)
	}
	p := &printer{io: IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}, c: c, taskID: resp.GetTaskId()}
	if code := p.follow(ctx); code != exitOK {
		t.Fatalf("the task ended with %d", code)
	}
	if err := m.Err(); err != nil {
		t.Fatal(err)
	}
	got := commandResult(t, m.Server)
	// The command's own environment loses a variable holding the key the daemon was given,
	// whatever its name.
	own, parent, _ := strings.Cut(got, "\nPARENT-FOLLOWS")
	if !strings.Contains(own, "KEYTEST_MARKER=visible") || strings.Contains(own, "sk-test-OVERRPC") || strings.Contains(own, "MY_LLM_TOKEN") {
		t.Errorf("the command's environment is not the daemon's without the key:\n%s", own)
	}
	// The daemon learnt that key after it started: its own environment still holds the copy
	// it inherited (the extension removes it before the spawn when it knows the key).
	got = strings.ReplaceAll(parent, "MY_LLM_TOKEN=sk-test-OVERRPC", "")
	for _, want := range []string{"KEYTEST_MARKER=visible", "serve", "--data-dir"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the command's output lacks %q; it did not read the daemon:\n%s", want, got)
		}
	}
	for _, secret := range []string{"sk-test-INHERITED", "sk-test-OVERRPC", "OPENAI_API_KEY"} {
		if strings.Contains(got, secret) {
			t.Errorf("the model was shown %q from the daemon's process:\n%s", secret, got)
		}
	}
	for _, a := range m.authorizations() {
		if a != "Bearer sk-test-OVERRPC" {
			t.Errorf("a request was sent with Authorization %q, want the key sent over gRPC", a)
		}
	}
}

// TestResumeKeysNotInParentProcess: `cairn resume` sheds its keys as `cairn run` does.
func TestResumeKeysNotInParentProcess(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc on this system")
	}
	bin := buildCairn(t)
	done := "<attempt_completion>\n<result>Done.</result>\n</attempt_completion>"
	m := newAuthModel(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: done},
		{Text: "<execute_command>\n<command>" + readParent + "</command>\n<requires_approval>false</requires_approval>\n</execute_command>",
			Expect: &llmtest.Expect{LastUserContains: []string{"[TASK RESUMPTION]"}}},
		{Text: done},
	}})
	data, ws, conf := t.TempDir(), t.TempDir(), t.TempDir()
	cairn := func(env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(append(os.Environ(), "XDG_CONFIG_HOME="+conf, "CAIRN_API_KEY=", "OPENAI_API_KEY=", "CAIRN_DEBUG="), env...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("cairn %q: %v\nstdout:\n%s\nstderr:\n%s", args, err, out.String(), errb.String())
		}
		return out.String()
	}
	cairn(nil, "run", "-C", ws, "--data-dir", data, "--base-url", m.url, "--api-key", "sk-first-run", "--model", "m", "finish at once")
	entries, err := os.ReadDir(filepath.Join(data, "tasks"))
	if err != nil || len(entries) != 1 {
		t.Fatalf("tasks in the data dir: %v (%v)", entries, err)
	}
	cairn([]string{"OPENAI_API_KEY=sk-test-RESUME-ENV", "KEYTEST_MARKER=visible"}, "resume", "--no-sandbox", "--data-dir", data,
		"--base-url", m.url, "--api-key=sk-test-RESUME-FLAG", "--model", "m", "--auto-approve", "command", entries[0].Name())
	if err := m.Err(); err != nil {
		t.Fatal(err)
	}
	reqs := m.Requests()
	if len(reqs) != 3 {
		t.Fatalf("the model got %d requests, want 3", len(reqs))
	}
	got := reqs[2].LastUser()
	for _, want := range []string{"KEYTEST_MARKER=visible", "resume", "--auto-approve"} {
		if !strings.Contains(got, want) {
			t.Fatalf("the command's output lacks %q; it did not read its parent:\n%s", want, got)
		}
	}
	for _, secret := range []string{"sk-test-RESUME", "api-key", "OPENAI_API_KEY"} {
		if strings.Contains(got, secret) {
			t.Errorf("the model was shown %q from the parent process:\n%s", secret, got)
		}
	}
	if a := m.authorizations(); len(a) != 3 || a[1] != "Bearer sk-test-RESUME-FLAG" || a[2] != "Bearer sk-test-RESUME-FLAG" {
		t.Errorf("Authorization headers %q, want the resume's --api-key", a)
	}
}
