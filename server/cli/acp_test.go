package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/server/cli"
)

// lockedBuffer is stderr written by the command while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// `cairn acp` on its own daemon: an editor's JSON-RPC lines in, and on stdout nothing but
// JSON-RPC messages: the answers, the streamed text, and end_turn at the completion.
func TestACPSpeaksOnlyProtocolOnStdout(t *testing.T) {
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{{Text: "Hi from the model.\n" + completion, ChunkSize: 5}}})
	ws := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CAIRN_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb lockedBuffer
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	code := make(chan int, 1)
	go func() {
		code <- cli.Run(ctx, []string{"acp", "--data-dir", t.TempDir(), "--base-url", srv.URL(), "--api-key", "k", "--model", "m"},
			cli.IO{In: inR, Out: outW, Err: &errb})
		if err := outW.Close(); err != nil {
			t.Error(err)
		}
	}()
	lines := bufio.NewScanner(outR)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	// next reads stdout up to the answer with id, checking that every line is JSON-RPC 2.0.
	var text strings.Builder
	next := func(id int) map[string]any {
		for lines.Scan() {
			var m map[string]any
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
				t.Fatalf("stdout carries a line that is not JSON-RPC: %q (%v)", lines.Text(), err)
			}
			if m["method"] == "session/update" {
				u := m["params"].(map[string]any)["update"].(map[string]any)
				if u["sessionUpdate"] == "agent_message_chunk" {
					text.WriteString(u["content"].(map[string]any)["text"].(string))
				}
			}
			if v, ok := m["id"].(float64); ok && int(v) == id {
				if m["error"] != nil {
					t.Fatalf("request %d failed: %v", id, m["error"])
				}
				return m["result"].(map[string]any)
			}
		}
		t.Fatalf("stdout ended (%v); stderr:\n%s", lines.Err(), errb.String())
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	if v := next(1)["protocolVersion"]; v != float64(1) {
		t.Fatalf("protocolVersion = %v", v)
	}
	cwd, err := json.Marshal(ws)
	if err != nil {
		t.Fatal(err)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + string(cwd) + `,"mcpServers":[]}}`)
	sid := next(2)["sessionId"].(string)
	send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"say hi"}]}}`)
	if r := next(3)["stopReason"]; r != "end_turn" {
		t.Fatalf("stopReason = %v", r)
	}
	if !strings.Contains(text.String(), "Hi from the model.") || !strings.Contains(text.String(), "All done.") {
		t.Errorf("streamed text = %q", text.String())
	}
	if err := inW.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("exit %d; stderr:\n%s", c, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("cairn acp did not end when its stdin closed")
	}
	if err := srv.Err(); err != nil {
		t.Error(err)
	}
}

// Without a model endpoint `cairn acp` still answers initialize, with an auth method whose
// description names the settings to set, and refuses a session with auth_required.
func TestACPWithoutKeySaysWhatToSet(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	for _, k := range []string{"CAIRN_API_KEY", "OPENAI_API_KEY", "CAIRN_BASE_URL"} {
		t.Setenv(k, "")
	}
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`,
	}, "\n") + "\n"
	inR, inW := io.Pipe()
	var out, errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(context.Background(), []string{"acp", "--data-dir", t.TempDir()}, cli.IO{In: inR, Out: &out, Err: &errb})
	}()
	if _, err := io.WriteString(inW, in); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(out.String(), "\n") < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := inW.Close(); err != nil {
		t.Fatal(err)
	}
	if c := <-done; c != 2 {
		t.Errorf("exit %d, want 2", c)
	}
	// The two requests are answered in either order: they are matched by id.
	answers := make([]map[string]any, 2)
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line %q: %v", l, err)
		}
		if id, ok := m["id"].(float64); ok && (id == 1 || id == 2) {
			answers[int(id)-1] = m
		}
	}
	if answers[0] == nil || answers[1] == nil {
		t.Fatalf("answers = %v", answers)
	}
	methods := answers[0]["result"].(map[string]any)["authMethods"].([]any)
	if len(methods) != 1 || !strings.Contains(methods[0].(map[string]any)["description"].(string), "CAIRN_API_KEY") {
		t.Errorf("auth methods = %v", methods)
	}
	e, _ := answers[1]["error"].(map[string]any)
	if e == nil || e["code"] != float64(-32000) || !strings.Contains(fmt.Sprint(e["data"]), "CAIRN_BASE_URL") {
		t.Errorf("session/new answer = %v", answers[1])
	}
	if !strings.Contains(errb.String(), "CAIRN_API_KEY") {
		t.Errorf("stderr = %q", errb.String())
	}
}

// acpProc is one `cairn acp` run in process, spoken to as an editor does.
type acpProc struct {
	t    *testing.T
	in   *io.PipeWriter
	msgs chan map[string]any
	code chan int
	errb *lockedBuffer
}

func startACP(t *testing.T, args ...string) *acpProc {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &acpProc{t: t, in: inW, msgs: make(chan map[string]any, 256), code: make(chan int, 1), errb: &lockedBuffer{}}
	go func() {
		p.code <- cli.Run(context.Background(), append([]string{"acp"}, args...), cli.IO{In: inR, Out: outW, Err: p.errb})
		if err := outW.Close(); err != nil {
			t.Error(err)
		}
	}()
	go func() {
		defer close(p.msgs)
		lines := bufio.NewScanner(outR)
		lines.Buffer(make([]byte, 1<<20), 1<<20)
		for lines.Scan() {
			var m map[string]any
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
				t.Errorf("stdout line %q: %v", lines.Text(), err)
				continue
			}
			p.msgs <- m
		}
	}()
	return p
}

// call sends a request and returns its answer; the updates before it go to updates.
func (p *acpProc) call(id int, method string, params any, updates *[]map[string]any) map[string]any {
	p.t.Helper()
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		p.t.Fatal(err)
	}
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		p.t.Fatal(err)
	}
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				p.t.Fatalf("stdout ended; stderr:\n%s", p.errb.String())
			}
			if m["method"] == "session/update" && updates != nil {
				*updates = append(*updates, m["params"].(map[string]any)["update"].(map[string]any))
			}
			if v, ok := m["id"].(float64); ok && int(v) == id && m["method"] == nil {
				return m
			}
		case <-timeout:
			p.t.Fatalf("no answer to %s; stderr:\n%s", method, p.errb.String())
		}
	}
}

// end closes stdin and waits for the exit code.
func (p *acpProc) end() int {
	p.t.Helper()
	if err := p.in.Close(); err != nil {
		p.t.Fatal(err)
	}
	select {
	case c := <-p.code:
		return c
	case <-time.After(30 * time.Second):
		p.t.Fatal("cairn acp did not end")
		return -1
	}
}

// A session is loaded by a second `cairn acp` started after the first one ended (each with
// its own private daemon on the same data dir): the conversation is replayed and the task goes
// on. While the first process still holds the task, a load from another process is refused
// (one daemon owns a task).
func TestACPLoadFromASecondProcess(t *testing.T) {
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "First.\n" + completion},
		{Text: "<attempt_completion>\n<result>Again.</result>\n</attempt_completion>",
			Expect: &llmtest.Expect{LastUserContains: []string{"once more"}}},
	}})
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CAIRN_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	ws, data := t.TempDir(), t.TempDir()
	args := []string{"--data-dir", data, "--base-url", srv.URL(), "--api-key", "k", "--model", "m"}
	init := map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}

	first := startACP(t, args...)
	first.call(1, "initialize", init, nil)
	sid := first.call(2, "session/new", map[string]any{"cwd": ws, "mcpServers": []any{}}, nil)["result"].(map[string]any)["sessionId"]
	r := first.call(3, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "the first words"}}}, nil)
	if r["result"].(map[string]any)["stopReason"] != "end_turn" {
		t.Fatalf("prompt = %v", r)
	}

	// The first process still holds the task.
	second := startACP(t, args...)
	second.call(1, "initialize", init, nil)
	if r := second.call(2, "session/load", map[string]any{"sessionId": sid, "cwd": ws, "mcpServers": []any{}}, nil); !strings.Contains(fmt.Sprint(r["error"]), "is open in") {
		t.Errorf("a second process loaded a task the first one holds, or failed otherwise: %v", r)
	}
	if c := second.end(); c != 0 {
		t.Errorf("second exit %d", c)
	}
	if c := first.end(); c != 0 {
		t.Errorf("first exit %d; stderr:\n%s", c, first.errb.String())
	}

	third := startACP(t, args...)
	third.call(1, "initialize", init, nil)
	var replay []map[string]any
	if r := third.call(2, "session/load", map[string]any{"sessionId": sid, "cwd": ws, "mcpServers": []any{}}, &replay); r["error"] != nil {
		t.Fatalf("load = %v", r)
	}
	var user, agent strings.Builder
	for _, u := range replay {
		content, _ := u["content"].(map[string]any)
		text, _ := content["text"].(string)
		switch u["sessionUpdate"] {
		case "user_message_chunk":
			user.WriteString(text)
		case "agent_message_chunk":
			agent.WriteString(text)
		}
	}
	if !strings.Contains(user.String(), "the first words") || !strings.Contains(agent.String(), "All done.") {
		t.Errorf("replay: user %q, agent %q", user.String(), agent.String())
	}
	r = third.call(3, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "once more"}}}, nil)
	if r["result"].(map[string]any)["stopReason"] != "end_turn" {
		t.Fatalf("prompt after load = %v", r)
	}
	if c := third.end(); c != 0 {
		t.Errorf("third exit %d", c)
	}
	if err := srv.Err(); err != nil {
		t.Error(err)
	}
}
