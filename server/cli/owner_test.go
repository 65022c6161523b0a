package cli_test

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/server/cli"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// Two `cairn resume ID` of one task at once (two private daemons on one data dir): the second
// exits 1 with a message naming the process that holds the task and --connect; the first runs
// the task to its end, alone (the model gets one request).
func TestSecondResumeOfOneTaskRefused(t *testing.T) {
	dataDir, ws := t.TempDir(), t.TempDir()
	ids := seedTasks(t, dataDir, ws, "Finish the report")
	srv := llmtest.New(t, llmtest.Script{Turns: []llmtest.Turn{{
		Text:  "<attempt_completion>\n<result>Report finished again.</result>\n</attempt_completion>",
		Delay: llmtest.Duration(300 * time.Millisecond), ChunkSize: 40,
	}}})
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CAIRN_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	args := []string{"resume", "--data-dir", dataDir, "--base-url", srv.URL(), "--api-key", "k", "--model", "m", ids[0]}

	type result struct {
		code     int
		out, err string
	}
	first := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := cli.Run(context.Background(), args, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
		first <- result{code, out.String(), errb.String()}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for len(srv.Requests()) == 0 { // the first resume holds the task once its request is out
		if time.Now().After(deadline) {
			t.Fatal("the first resume never reached the model")
		}
		time.Sleep(5 * time.Millisecond)
	}

	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), args, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != 1 {
		t.Errorf("second resume: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"is open in Cairn process " + strconv.Itoa(os.Getpid()), "cairn resume --connect " + ids[0]} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("second resume's stderr lacks %q:\n%s", want, errb.String())
		}
	}

	r := <-first
	if r.code != 0 || !strings.Contains(r.out, "Report finished again.") {
		t.Fatalf("first resume: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.out, r.err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the model got %d requests, want the first resume's one", n)
	}
}
