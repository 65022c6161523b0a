package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/sandbox"
)

// Toolchains runs the exercises' tests: which programs each language needs, whether they are
// there, and the test command. Languages are the dataset's folder names.
type Toolchains struct {
	// Env is the environment of the test commands (the caller removes secrets from it: the
	// tests run code the model wrote).
	Env []string
	// CacheDir holds what is installed once for all exercises (JavaScript's test tools).
	CacheDir string
	// Sandbox, when set, is what the command sandbox of the set-up and of each test run
	// starts from (docs/architecture.md "Benchmark"): the set-up writes the cache with the
	// network on; a test run writes its workspace and scratch folder with the network off.
	// Nil runs them plainly (the user turned the sandbox off, or none can be set up here).
	Sandbox *sandbox.Base

	// Progress, when set, gets a line before a toolchain installs (JavaScript's packages take
	// minutes the first time), so a run never sits silent meanwhile.
	Progress io.Writer

	python string // the interpreter that has pytest, found by Check
}

// Supported are the languages the harness can test.
var Supported = []string{"cpp", "go", "java", "javascript", "python", "rust"}

// Check finds each language's toolchain and returns, per language, why it cannot run (nil when
// it can). It runs nothing of the benchmark.
func (t *Toolchains) Check(ctx context.Context, langs []string) map[string]error {
	out := map[string]error{}
	need := func(progs ...string) error {
		var missing []string
		for _, p := range progs {
			if _, err := exec.LookPath(p); err != nil {
				missing = append(missing, p)
			}
		}
		if len(missing) > 0 {
			return fmt.Errorf("%s not found on PATH", strings.Join(missing, " and "))
		}
		return nil
	}
	for _, l := range langs {
		switch l {
		case "go":
			out[l] = need("go")
		case "rust":
			out[l] = need("cargo")
		case "javascript":
			out[l] = need("node", "npm")
		case "python":
			out[l] = t.findPytest(ctx)
		case "cpp":
			out[l] = need("cmake", "make", "c++")
		case "java":
			// The exercises' gradle wrapper downloads gradle: the machine's own gradle runs
			// the tests instead, offline.
			if err := need("gradle", "java"); err != nil {
				out[l] = fmt.Errorf("%w (the exercises' gradle wrapper needs the network; install a system gradle)", err)
			}
		default:
			out[l] = fmt.Errorf("not a language the harness knows (it knows %s)", strings.Join(Supported, ", "))
		}
	}
	return out
}

// findPytest looks for a Python that can run pytest: the interpreters on PATH, then the
// system's own (a version manager's python3 often lacks the packages the system has).
func (t *Toolchains) findPytest(ctx context.Context) error {
	var tried []string
	for _, name := range []string{"python3", "python", "/usr/bin/python3"} {
		p, err := exec.LookPath(name)
		if err != nil || slices.Contains(tried, p) {
			continue
		}
		tried = append(tried, p)
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		cmd := exec.CommandContext(cctx, p, "-m", "pytest", "--version")
		cmd.Env = t.Env
		err = cmd.Run()
		cancel()
		if err == nil {
			t.python = p
			return nil
		}
	}
	if len(tried) == 0 {
		return errors.New("no python3 found on PATH")
	}
	return fmt.Errorf("no Python with pytest (tried %s): install pytest, e.g. Debian's python3-pytest", strings.Join(tried, ", "))
}

// jsDir is where JavaScript's test tools are installed, once for every exercise.
func (t *Toolchains) jsDir() string { return filepath.Join(t.CacheDir, "javascript") }

// SetUp installs what the exercises' languages need once: JavaScript's test tools (the union
// of the exercises' devDependencies) into the cache, unless the same set is already there.
func (t *Toolchains) SetUp(ctx context.Context, exercises []Exercise) error {
	deps := map[string]string{}
	for _, ex := range exercises {
		if ex.Language != "javascript" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(ex.Dir, "package.json"))
		if err != nil {
			return fmt.Errorf("exercise %s: %w", ex.Key(), err)
		}
		var pkg struct {
			Dev map[string]string `json:"devDependencies"`
		}
		if err := json.Unmarshal(b, &pkg); err != nil {
			return fmt.Errorf("exercise %s: package.json: %w", ex.Key(), err)
		}
		maps.Copy(deps, pkg.Dev)
	}
	if len(deps) == 0 {
		return nil
	}
	manifest, err := json.MarshalIndent(map[string]any{"name": "cairn-eval-javascript-tools", "private": true,
		"devDependencies": deps}, "", "  ")
	if err != nil {
		return err
	}
	dir := t.jsDir()
	old, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err == nil && bytes.Equal(old, manifest) {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", "jest")); err == nil {
			return nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if t.Progress != nil {
		// A failed write loses only the progress line.
		_, _ = fmt.Fprintf(t.Progress, "cairn eval: installing the JavaScript test tools (%d packages) into %s, once; "+
			"this can take a few minutes\n", len(deps), dir)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), manifest, 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir, cmd.Env = dir, t.Env
	if t.Sandbox != nil {
		// npm fills its cache: it is made when missing, so the sandbox can let it be written.
		npmCache := envValue(t.Env, "npm_config_cache")
		if npmCache == "" && t.Sandbox.Home != "" {
			npmCache = filepath.Join(t.Sandbox.Home, ".npm")
		}
		var writable []string
		if npmCache != "" {
			if err := os.MkdirAll(npmCache, 0o755); err != nil {
				return fmt.Errorf("npm's cache: %w", err)
			}
			writable = append(writable, npmCache)
		}
		temp, err := os.MkdirTemp("", "cairn-eval-setup-")
		if err != nil {
			return err
		}
		// What npm left in its temp folder is of no further use.
		defer func() { _ = os.RemoveAll(temp) }()
		if err := t.confine(cmd, true, setUpNetwork, temp, []string{dir}, writable); err != nil {
			return fmt.Errorf("installing JavaScript's test tools: %w", err)
		}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("installing JavaScript's test tools into %s: %w\n%s", dir, err, tail(string(out), 20))
	}
	return nil
}

// CheckCommand is the exercise's tests as a command line its task can run in its workspace, as
// the task's "done when" check (Config.DoneCheck); "" for a language whose tests need the
// harness's own set-up (JavaScript's test tools are linked in only for the harness's runs).
func (t *Toolchains) CheckCommand(ex Exercise) string {
	switch ex.Language {
	case "go":
		return "GOWORK=off GOTOOLCHAIN=local GOFLAGS=-mod=mod go test ./..."
	case "python":
		if t.python == "" {
			return ""
		}
		return "'" + strings.ReplaceAll(t.python, "'", `'\''`) + "' -m pytest -q -p no:cacheprovider"
	case "rust", "cpp", "java":
		return testCommand.Get()[ex.Language]
	}
	return ""
}

// TestRun is the outcome of one run of an exercise's tests.
type TestRun struct {
	Passed bool
	Output string
	// TimedOut: the run was stopped at its time limit.
	TimedOut bool
}

// Test runs the exercise's tests in the workspace ws within timeout. scratch is a folder of the
// harness outside the workspace (Rust builds there). An error means the tests could not be
// run at all; failing tests are a TestRun that did not pass.
func (t *Toolchains) Test(ctx context.Context, ex Exercise, ws, scratch string, timeout time.Duration) (run TestRun, err error) {
	var args []string
	env := slices.Clone(t.Env)
	switch ex.Language {
	case "go":
		args = []string{"go", "test", "./..."}
		env = append(env, "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")
	case "python":
		if t.python == "" {
			return TestRun{}, errors.New("no Python with pytest (Check was not run)")
		}
		args = []string{t.python, "-m", "pytest", "-q", "-p", "no:cacheprovider"}
	case "rust":
		args = []string{"cargo", "test", "--", "--include-ignored"}
		env = append(env, "CARGO_TARGET_DIR="+filepath.Join(scratch, "target"))
	case "cpp":
		// As Aider's harness: configure with every test enabled; building runs the tests.
		build := filepath.Join(scratch, "build")
		if err := os.RemoveAll(build); err != nil {
			return TestRun{}, err
		}
		args = []string{"sh", "-c", `cmake -DEXERCISM_RUN_ALL_TESTS=1 -G "Unix Makefiles" -S . -B "$0" && cmake --build "$0"`, build}
	case "java":
		args = []string{"gradle", "test", "--offline", "--console=plain", "-q", "--project-cache-dir", filepath.Join(scratch, "gradle")}
	case "javascript":
		link := filepath.Join(ws, "node_modules")
		if err := os.RemoveAll(link); err != nil {
			return TestRun{}, err
		}
		if err := os.Symlink(filepath.Join(t.jsDir(), "node_modules"), link); err != nil {
			return TestRun{}, fmt.Errorf("linking JavaScript's test tools: %w", err)
		}
		defer func() {
			// The link goes before the agent's next try: the workspace is the exercise's own.
			if rerr := os.Remove(link); rerr != nil && !os.IsNotExist(rerr) && err == nil {
				err = fmt.Errorf("removing the link to JavaScript's test tools: %w", rerr)
			}
		}()
		args = []string{"npm", "test", "--silent"}
		env = append(env, "CI=true")
	default:
		return TestRun{}, fmt.Errorf("no test command for %s", ex.Language)
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, args[0], args[1:]...)
	cmd.Dir, cmd.Env = ws, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	ownGroup(cmd)
	if t.Sandbox != nil {
		temp := filepath.Join(scratch, "tmp")
		if err := os.RemoveAll(temp); err != nil {
			return TestRun{}, err
		}
		if err := os.MkdirAll(temp, 0o700); err != nil {
			return TestRun{}, err
		}
		if err := t.confine(cmd, false, testNetwork, temp, []string{ws, scratch}, nil); err != nil {
			return TestRun{}, fmt.Errorf("running the tests in the sandbox: %w", err)
		}
	}
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return TestRun{}, ctx.Err()
	case cctx.Err() != nil:
		return TestRun{Output: out.String() + fmt.Sprintf("\nThe tests did not finish within %s and were stopped.\n", timeout),
			TimedOut: true}, nil
	case errors.As(err, &exit):
		return TestRun{Output: out.String()}, nil
	case err != nil:
		return TestRun{}, fmt.Errorf("running %s: %w", strings.Join(args, " "), err)
	}
	return TestRun{Passed: true, Output: out.String()}, nil
}

// The network rules of the benchmark's two kinds of process (sandbox.Policy's NetworkRule).
const (
	setUpNetwork = "the benchmark's set-up installs the test tools over the network"
	testNetwork  = "the benchmark's tests run without the network"
)

// confine makes cmd run in the sandbox over t.Sandbox in the Workspace tier: roots and
// writable writable, temp its private temp folder, the network on or off as rule says.
func (t *Toolchains) confine(cmd *exec.Cmd, network bool, rule, temp string, roots, writable []string) error {
	b := *t.Sandbox
	b.Roots, b.Temp = roots, temp
	b.Writable = append(slices.Clone(b.Writable), writable...)
	return sandbox.Apply(cmd, b.Policy(sandbox.Workspace, network, rule))
}

// envValue is the value of the variable key in env ("" when unset).
func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if rest, ok := strings.CutPrefix(kv, key+"="); ok {
			v = rest
		}
	}
	return v
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
