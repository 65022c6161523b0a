package helper_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/helper"
	"github.com/cairnhq/cairn/core/helper/helpertest"
)

// probeEnv, when set, makes the test binary run helper.Run once and print its error instead
// of running the tests: helper.Path is looked up once per process, so a helper that is missing
// is tried in a process of its own.
const probeEnv = "CAIRN_HELPER_TEST_PROBE"

func TestMain(m *testing.M) {
	if os.Getenv(probeEnv) != "" {
		_, err := helper.Run(context.Background(), nil, "pdf-text")
		var refused *helper.RefusedError
		fmt.Printf("refused=%v err=%v\n", errors.As(err, &refused), err)
		os.Exit(0)
	}
	helpertest.Main(m)
}

func TestRunConverts(t *testing.T) {
	out, err := helper.Run(context.Background(), []byte(`<p>See <a href="/next">next</a>.</p>`), "html-markdown", "https://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), "See [next](https://example.com/next)."; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
}

func TestRunRefused(t *testing.T) {
	_, err := helper.Run(context.Background(), []byte("%PDF-1.4\nnot really"), "pdf-text")
	var refused *helper.RefusedError
	if !errors.As(err, &refused) {
		t.Fatalf("err = %v (%T), want a *RefusedError", err, err)
	}
	if !strings.HasPrefix(refused.Msg, "pdf") || strings.HasSuffix(refused.Msg, "\n") {
		t.Errorf("Msg = %q, want the reader's complaint, trimmed", refused.Msg)
	}
}

func TestRunFails(t *testing.T) {
	_, err := helper.Run(context.Background(), nil, "no-such-command")
	var refused *helper.RefusedError
	if err == nil || errors.As(err, &refused) {
		t.Fatalf("err = %v, want a failure that is not a refusal", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "cairn-helper no-such-command") || !strings.Contains(msg, "unknown command") {
		t.Errorf("err = %q, want the command and the helper's stderr", msg)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := helper.Run(ctx, nil, "pdf-text"); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

// TestRunMissing runs the test binary again with no usable helper: CAIRN_HELPER naming a file
// that does not exist, and no CAIRN_HELPER with no helper beside the (test) executable.
func TestRunMissing(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), helper.Name)
	for _, tc := range []struct {
		name, helperEnv, want string
	}{
		{name: "CAIRN_HELPER names nothing", helperEnv: missing, want: "cairn-helper pdf-text"},
		{name: "none beside the executable", want: "cairn-helper is missing beside the daemon"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(self, "-test.run=^$")
			env := []string{probeEnv + "=1"}
			for _, kv := range os.Environ() {
				if !strings.HasPrefix(kv, helper.Env+"=") {
					env = append(env, kv)
				}
			}
			if tc.helperEnv != "" {
				env = append(env, helper.Env+"="+tc.helperEnv)
			}
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("probe: %v\n%s", err, out)
			}
			got := string(out)
			if !strings.HasPrefix(got, "refused=false err=") || !strings.Contains(got, tc.want) {
				t.Errorf("probe printed %q, want a failure that is not a refusal, mentioning %q", got, tc.want)
			}
		})
	}
}
