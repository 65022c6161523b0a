package eval

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/core/sandbox/sandboxtest"
)

// sandboxed returns toolchains whose set-up and tests run in the sandbox, as `cairn eval`
// makes them, with PORT naming a listener on 127.0.0.1 in their environment; the test is
// skipped where no sandbox can be set up, with the reason.
func sandboxed(t *testing.T) *Toolchains {
	t.Helper()
	sandboxtest.Require(t)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lis.Close() })
	go func() {
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	home, _ := os.UserHomeDir() // none: nothing of a home to mask
	port := strconv.Itoa(lis.Addr().(*net.TCPAddr).Port)
	return &Toolchains{Env: append(os.Environ(), "PORT="+port), CacheDir: t.TempDir(), Sandbox: &sandbox.Base{Home: home}}
}

// An exercise's tests run in the sandbox with the network off (docs/architecture.md
// "Benchmark"): they build and write in the workspace, but cannot connect to a server on this
// machine, nor write outside the workspace and the harness's scratch folder.
func TestTestsRunWithoutTheNetwork(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	tc := sandboxed(t)
	ws, outside := t.TempDir(), t.TempDir()
	test := `package offline_test

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

func TestConfined(t *testing.T) {
	if c, err := net.Dial("tcp", "127.0.0.1:"+os.Getenv("PORT")); err == nil {
		c.Close()
		t.Error("connected to the listener")
	}
	if err := os.WriteFile("out.txt", []byte("x"), 0o644); err != nil {
		t.Errorf("the workspace: %v", err)
	}
	if err := os.WriteFile(filepath.Join(os.Getenv("OUTSIDE"), "x"), []byte("x"), 0o644); err == nil {
		t.Error("wrote outside the workspace")
	}
}
`
	for name, text := range map[string]string{"go.mod": "module offline\n\ngo 1.21\n", "offline_test.go": test} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tc.Env = append(tc.Env, "OUTSIDE="+outside)
	run, err := tc.Test(context.Background(), Exercise{Language: "go", Name: "offline"}, ws, t.TempDir(), 2*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if !run.Passed {
		t.Fatalf("the tests failed:\n%s", run.Output)
	}
	if _, err := os.Stat(filepath.Join(outside, "x")); err == nil {
		t.Error("the tests wrote outside the workspace")
	}
}

// The set-up's network is on and the tests' off: the same connection goes through from one
// and is refused from the other.
func TestSetUpHasTheNetworkTheTestsDoNot(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH (the check connects with its /dev/tcp)")
	}
	tc := sandboxed(t)
	for _, c := range []struct {
		name, rule string
		network    bool
	}{{"set-up", setUpNetwork, true}, {"tests", testNetwork, false}} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bash, "-c", `exec 3<>"/dev/tcp/127.0.0.1/$PORT"`)
			cmd.Env = tc.Env
			if err := tc.confine(cmd, c.network, c.rule, t.TempDir(), []string{t.TempDir()}, nil); err != nil {
				t.Fatal(err)
			}
			out, err := cmd.CombinedOutput()
			if (err == nil) != c.network {
				t.Errorf("connected %v, want %v: %v %s", err == nil, c.network, err, out)
			}
		})
	}
}

// The set-up installs the union of the exercises' devDependencies with npm in the sandbox
// (here a package from a folder, so no registry is needed).
func TestSetUpInstallsInTheSandbox(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("no npm on PATH")
	}
	tc := sandboxed(t)
	tool := t.TempDir()
	if err := os.WriteFile(filepath.Join(tool, "package.json"), []byte(`{"name": "local-tool", "version": "1.0.0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	exercise(t, root, "javascript", "hello", map[string]string{"package.json": `{"devDependencies": {"local-tool": "file:` + tool + `"}}`})
	ex := Exercise{Language: "javascript", Name: "hello", Dir: filepath.Join(root, "javascript", "exercises", "practice", "hello")}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := tc.SetUp(ctx, []Exercise{ex}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(tc.jsDir(), "node_modules", "local-tool", "package.json")); err != nil {
		t.Errorf("not installed: %v", err)
	}
}
