package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// rawTerminal is a terminal of the raw client: the command runs for real.
type rawTerminal struct {
	cmd  *exec.Cmd
	done chan struct{}
	mu   sync.Mutex
	out  bytes.Buffer
}

func (r *rawTerminal) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.Write(p)
}

func (r *rawTerminal) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// rawClient answers the agent's requests to the client on the raw JSON-RPC stream, as an
// editor offering a terminal does, and keeps every message in order.
type rawClient struct {
	p     *acpProc
	start time.Time
	// logMu guards log: an answer to terminal/wait_for_exit is sent from its own goroutine.
	logMu sync.Mutex
	log   []string
	terms map[string]*rawTerminal
	// sent are the messages received so far, in order.
	seen []map[string]any
}

func (c *rawClient) record(dir string, m any) {
	b, err := json.Marshal(m)
	if err != nil {
		c.p.t.Fatal(err)
	}
	c.logMu.Lock()
	defer c.logMu.Unlock()
	c.log = append(c.log, fmt.Sprintf("%6dms %s %s", time.Since(c.start).Milliseconds(), dir, b))
}

func (c *rawClient) messages() string {
	c.logMu.Lock()
	defer c.logMu.Unlock()
	return strings.Join(c.log, "\n") + "\n"
}

func (c *rawClient) send(m map[string]any) {
	m["jsonrpc"] = "2.0"
	c.record("->", m)
	b, err := json.Marshal(m)
	if err != nil {
		c.p.t.Fatal(err)
	}
	if _, err := c.p.in.Write(append(b, '\n')); err != nil {
		c.p.t.Fatal(err)
	}
}

// next reads the agent's next message, answering it when it is a request to the client; it
// returns nil when nothing came within wait.
func (c *rawClient) next(wait time.Duration) map[string]any {
	c.p.t.Helper()
	select {
	case m, ok := <-c.p.msgs:
		if !ok {
			c.p.t.Fatalf("stdout ended; stderr:\n%s", c.p.errb.String())
		}
		c.record("<-", m)
		c.seen = append(c.seen, m)
		if method, _ := m["method"].(string); method != "" && m["id"] != nil {
			c.answer(m)
		}
		return m
	case <-time.After(wait):
		return nil
	}
}

func (c *rawClient) answer(m map[string]any) {
	params, _ := m["params"].(map[string]any)
	reply := func(result any) { c.send(map[string]any{"id": m["id"], "result": result}) }
	term := func() *rawTerminal { return c.terms[fmt.Sprint(params["terminalId"])] }
	switch m["method"] {
	case "session/request_permission":
		reply(map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": "allow_once"}})
	case "terminal/create":
		var args []string
		for _, a := range params["args"].([]any) {
			args = append(args, a.(string))
		}
		cmd := exec.Command(params["command"].(string), args...)
		cmd.Dir, _ = params["cwd"].(string)
		cmd.WaitDelay = 300 * time.Millisecond
		t := &rawTerminal{cmd: cmd, done: make(chan struct{})}
		cmd.Stdout, cmd.Stderr = t, t
		if err := cmd.Start(); err != nil {
			c.p.t.Fatal(err)
		}
		go func() {
			if err := cmd.Wait(); err != nil {
				c.p.t.Logf("the terminal's command: %v", err)
			}
			close(t.done)
		}()
		id := fmt.Sprintf("term-%d", len(c.terms)+1)
		c.terms[id] = t
		reply(map[string]any{"terminalId": id})
	case "terminal/output":
		reply(map[string]any{"output": term().output(), "truncated": false})
	case "terminal/wait_for_exit":
		t, id := term(), m["id"]
		// Answered when the command ends, from its own goroutine: the stream goes on meanwhile.
		go func() {
			<-t.done
			reply := map[string]any{"jsonrpc": "2.0", "id": id, "result": map[string]any{"exitCode": t.cmd.ProcessState.ExitCode()}}
			c.record("->", reply)
			b, err := json.Marshal(reply)
			if err == nil {
				_, err = c.p.in.Write(append(b, '\n'))
			}
			if err != nil {
				c.p.t.Error(err)
			}
		}()
	case "terminal/kill":
		if err := term().cmd.Process.Kill(); err != nil {
			c.p.t.Logf("terminal/kill: %v", err)
		}
		reply(map[string]any{})
	case "terminal/release":
		reply(map[string]any{})
	default:
		c.send(map[string]any{"id": m["id"], "error": map[string]any{"code": -32601, "message": "not offered"}})
	}
}

// until reads messages until one matches, within 30 s.
func (c *rawClient) until(what string, match func(m map[string]any) bool) map[string]any {
	c.p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := c.next(time.Until(deadline)); m != nil && match(m) {
			return m
		}
	}
	c.p.t.Fatalf("no %s; stderr:\n%s", what, c.p.errb.String())
	return nil
}

func answers(id int) func(m map[string]any) bool {
	return func(m map[string]any) bool {
		v, ok := m["id"].(float64)
		return ok && int(v) == id && m["method"] == nil
	}
}

// On the raw JSON-RPC stream, a command that runs in the client's terminal and is cancelled
// mid-run: the terminal is killed once, read to its end and released, and every update of
// the turn (the command's end among them) goes before the `cancelled` answer to
// session/prompt; nothing of the turn follows it (README "Use Cairn in Zed, JetBrains,
// Neovim"). With CAIRN_ACP_RAW_LOG set, the message log is written there.
func TestACPCancelInTheClientTerminalOnTheRawStream(t *testing.T) {
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: runCommand("echo started-in-the-terminal; sleep 30", false)},
	}})
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CAIRN_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	ws := t.TempDir()
	c := &rawClient{p: startACP(t, "--data-dir", t.TempDir(), "--base-url", srv.URL(), "--api-key", "k", "--model", "m"),
		start: time.Now(), terms: map[string]*rawTerminal{}}
	defer func() {
		if path := os.Getenv("CAIRN_ACP_RAW_LOG"); path != "" {
			if err := os.WriteFile(path, []byte(c.messages()), 0o644); err != nil {
				t.Error(err)
			}
		}
	}()
	c.send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"protocolVersion": 1,
		"clientCapabilities": map[string]any{"terminal": true}}})
	c.until("initialize answer", answers(1))
	c.send(map[string]any{"id": 2, "method": "session/new", "params": map[string]any{"cwd": ws, "mcpServers": []any{}}})
	sid := c.until("session/new answer", answers(2))["result"].(map[string]any)["sessionId"]
	c.send(map[string]any{"id": 3, "method": "session/prompt", "params": map[string]any{"sessionId": sid,
		"prompt": []any{map[string]any{"type": "text", "text": "run it"}}}})
	// The command has printed in the client's terminal: it runs.
	c.until("the command's output read back", func(m map[string]any) bool {
		if m["method"] != "terminal/output" {
			return false
		}
		t := c.terms[fmt.Sprint(m["params"].(map[string]any)["terminalId"])]
		return t != nil && strings.Contains(t.output(), "started-in-the-terminal")
	})
	sent := time.Now()
	c.send(map[string]any{"method": "session/cancel", "params": map[string]any{"sessionId": sid}})
	if r := c.until("answer to session/prompt", answers(3)); r["result"].(map[string]any)["stopReason"] != "cancelled" {
		t.Fatalf("prompt answered %v", r)
	}
	t.Logf("cancelled answered after %v", time.Since(sent))
	answered := len(c.seen)
	// Whatever still comes within a while comes after the answer.
	for more := true; more; {
		more = c.next(1500*time.Millisecond) != nil
	}
	kills, released, embedded, ended := 0, 0, false, false
	for i, m := range c.seen {
		method, _ := m["method"].(string)
		after := i >= answered
		if after && (method == "session/update" || strings.HasPrefix(method, "terminal/")) {
			t.Errorf("after the cancelled answer: %v", m)
		}
		switch method {
		case "terminal/kill":
			kills++
		case "terminal/release":
			released++
		case "session/update":
			u := m["params"].(map[string]any)["update"].(map[string]any)
			if u["sessionUpdate"] != "tool_call_update" {
				continue
			}
			for _, x := range asSlice(u["content"]) {
				embedded = embedded || x.(map[string]any)["type"] == "terminal"
			}
			if st, _ := u["status"].(string); st == "failed" || st == "completed" {
				ended = true
			}
		}
	}
	if kills != 1 || released != 1 || !embedded || !ended {
		t.Errorf("terminal/kill %d times, terminal/release %d times (want 1 each); terminal embedded %v; the command's end shown %v",
			kills, released, embedded, ended)
	}
	if t.Failed() {
		t.Logf("messages:\n%s", c.messages())
	}
	if code := c.p.end(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}
