package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/server/cli"
)

// firstRequest is a fake model that notes when its first chat request arrives.
type firstRequest struct {
	srv  *httptest.Server
	once sync.Once
	at   chan time.Time
}

func newFirstRequest(b *testing.B) *firstRequest {
	f := &firstRequest{at: make(chan time.Time, 1)}
	llm := llmtest.NewHandler(llmtest.Script{OnEnd: &llmtest.Turn{Text: completion}})
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			f.once.Do(func() { f.at <- time.Now() })
		}
		llm.ServeHTTP(w, r)
	}))
	b.Cleanup(func() {
		f.srv.Close()
		llm.Close()
	})
	return f
}

// BenchmarkACPFirstRequest is the time from the first byte of session/prompt to the first byte
// of the model request it causes, with `cairn acp` already initialized and its session open
// (the editor started it earlier), beside the same measure for `cairn run` (from the command's
// start, its private daemon included): ms-to-request is acp's, run-ms-to-request run's, and
// x-run acp's over run's (`make bench`). Setup is not counted.
func BenchmarkACPFirstRequest(b *testing.B) {
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	b.Setenv("CAIRN_API_KEY", "")
	b.Setenv("OPENAI_API_KEY", "")
	var total, run time.Duration
	defer func() {
		b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-request")
		b.ReportMetric(float64(run.Microseconds())/1000/float64(b.N), "run-ms-to-request")
		if run > 0 {
			b.ReportMetric(float64(total)/float64(run), "x-run")
		}
	}()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		run += runFirstRequest(b)
		f := newFirstRequest(b)
		ws := b.TempDir()
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan int, 1)
		go func() {
			done <- cli.Run(ctx, []string{"acp", "--data-dir", b.TempDir(), "--base-url", f.srv.URL + "/v1", "--api-key", "k", "--model", "m"},
				cli.IO{In: inR, Out: outW, Err: io.Discard})
			_ = outW.Close() // the reader below ends with it
		}()
		// stdout is read all the time, as an editor does: the agent's writes wait for a reader.
		msgs := make(chan map[string]any, 64)
		go func() {
			defer close(msgs)
			lines := bufio.NewScanner(outR)
			lines.Buffer(make([]byte, 1<<20), 1<<20)
			for lines.Scan() {
				var m map[string]any
				if json.Unmarshal(lines.Bytes(), &m) == nil {
					msgs <- m
				}
			}
		}()
		await := func(id int) map[string]any {
			for m := range msgs {
				if v, ok := m["id"].(float64); ok && int(v) == id {
					r, _ := m["result"].(map[string]any)
					return r
				}
			}
			b.Fatal("stdout ended")
			return nil
		}
		send := func(s string) {
			if _, err := io.WriteString(inW, s+"\n"); err != nil {
				b.Fatal(err)
			}
		}
		send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
		await(1)
		cwd, err := json.Marshal(ws)
		if err != nil {
			b.Fatal(err)
		}
		send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + string(cwd) + `,"mcpServers":[]}}`)
		sid := await(2)["sessionId"].(string)
		b.StartTimer()
		t0 := time.Now()
		send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"say hi"}]}}`)
		var at time.Time
		select {
		case at = <-f.at:
		case <-time.After(20 * time.Second):
			b.Fatal("no model request")
		}
		b.StopTimer()
		total += at.Sub(t0)
		await(3)
		if err := inW.Close(); err != nil {
			b.Fatal(err)
		}
		<-done
		cancel()
	}
}

// BenchmarkRunFirstRequest is the same measure for `cairn run`: from the command's start (it
// starts its private daemon first) to the first byte of the model request.
func BenchmarkRunFirstRequest(b *testing.B) {
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	b.Setenv("CAIRN_API_KEY", "")
	b.Setenv("OPENAI_API_KEY", "")
	var total time.Duration
	defer func() { b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-request") }()
	for i := 0; i < b.N; i++ {
		total += runFirstRequest(b) // ns/op also counts the fake model's start and the exit
	}
}

// runFirstRequest runs `cairn run` once and returns the time from its start to the first byte
// of its model request.
func runFirstRequest(b *testing.B) time.Duration {
	f := newFirstRequest(b)
	ws, data := b.TempDir(), b.TempDir()
	done := make(chan int, 1)
	t0 := time.Now()
	go func() {
		done <- cli.Run(context.Background(), []string{"run", "-C", ws, "--data-dir", data, "--base-url", f.srv.URL + "/v1",
			"--api-key", "k", "--model", "m", "say hi"}, cli.IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard})
	}()
	at := <-f.at
	if code := <-done; code != 0 {
		b.Fatalf("cairn run exit %d", code)
	}
	return at.Sub(t0)
}
