package eval

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// exercise writes a small exercise of lang into a fake dataset under root.
func exercise(t *testing.T, root, lang, name string, files map[string]string) {
	t.Helper()
	dir := filepath.Join(root, lang, "exercises", "practice", name)
	for rel, text := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o444); err != nil {
			t.Fatal(err)
		}
	}
}

const goConfig = `{"files":{"solution":["sum.go"],"test":["sum_test.go"],"example":[".meta/example.go"]}}`

func fakeDataset(t *testing.T) string {
	root := t.TempDir()
	for _, name := range []string{"alpha", "beta", "gamma"} {
		exercise(t, root, "go", name, map[string]string{".meta/config.json": goConfig, ".meta/example.go": "package sum\n",
			".docs/instructions.md": "# " + name + "\n\nAdd numbers.\n", "sum.go": "package sum\n", "sum_test.go": "package sum\n"})
	}
	exercise(t, root, "python", "alpha", map[string]string{
		".meta/config.json":            `{"files":{"solution":["alpha.py"],"test":["alpha_test.py"],"example":[".meta/example.py"]}}`,
		".docs/instructions.md":        "Do alpha.",
		".docs/instructions.append.md": "# Extra\n\nAlso this.",
		"alpha.py":                     "", "alpha_test.py": ""})
	return root
}

func keys(exs []Exercise) string {
	var out []string
	for _, e := range exs {
		out = append(out, e.Key())
	}
	return strings.Join(out, " ")
}

// Load selects by language, by LANG/NAME or NAME in every language, and by a limit per
// language; a name that selects nothing is an error.
func TestLoadSelects(t *testing.T) {
	ds := fakeDataset(t)
	cases := []struct {
		sel  Selection
		want string
	}{
		{Selection{}, "go/alpha go/beta go/gamma python/alpha"},
		{Selection{Languages: []string{"python"}}, "python/alpha"},
		{Selection{Exercises: []string{"alpha"}}, "go/alpha python/alpha"},
		{Selection{Exercises: []string{"go/beta", "python/alpha"}}, "go/beta python/alpha"},
		{Selection{Limit: 2}, "go/alpha go/beta python/alpha"},
	}
	for _, c := range cases {
		exs, err := Load(ds, c.sel)
		if err != nil || keys(exs) != c.want {
			t.Errorf("%+v: %q, %v; want %q", c.sel, keys(exs), err, c.want)
		}
	}
	if _, err := Load(ds, Selection{Exercises: []string{"go/delta"}}); err == nil || !strings.Contains(err.Error(), "go/delta") {
		t.Errorf("an unknown exercise: %v", err)
	}
	exs, err := Load(ds, Selection{Exercises: []string{"go/alpha"}})
	if err != nil || len(exs) != 1 || exs[0].Solution[0] != "sum.go" || exs[0].Test[0] != "sum_test.go" {
		t.Fatalf("config not read: %+v, %v", exs, err)
	}
}

// The workspace is a git repository holding the exercise without .meta and .docs, writable
// although the dataset is not; the task text starts with the exercise line, carries both
// instruction files and names the files.
func TestPrepareAndTaskText(t *testing.T) {
	ds := fakeDataset(t)
	exs, err := Load(ds, Selection{Exercises: []string{"python/alpha"}})
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(t.TempDir(), "ws")
	if err := Prepare(context.Background(), exs[0], ws); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", ws, "ls-files").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(string(out)); strings.Join(got, " ") != "alpha.py alpha_test.py" {
		t.Fatalf("committed files: %v", got)
	}
	if err := os.WriteFile(filepath.Join(ws, "alpha.py"), []byte("x = 1\n"), 0o644); err != nil {
		t.Fatalf("the workspace is not writable: %v", err)
	}
	text, err := TaskText(exs[0], false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(text, "Exercise: alpha (python)\n") {
		t.Fatalf("first line: %q", text)
	}
	for _, want := range []string{"Do alpha.", "Also this.", "`alpha.py`", "`alpha_test.py`", "attempt_completion"} {
		if !strings.Contains(text, want) {
			t.Errorf("task text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "python3 -m pytest") {
		t.Errorf("the task offers a test command without --agentic:\n%s", text)
	}
	if agentic, _ := TaskText(exs[0], true); !strings.Contains(agentic, "python3 -m pytest") {
		t.Errorf("the agentic task does not say how to run the tests:\n%s", agentic)
	}
}

// The feedback carries the last 50 lines of the test output, not more.
func TestFeedbackIsTheLast50Lines(t *testing.T) {
	var lines []string
	for i := 1; i <= 80; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	fb := FeedbackText(Exercise{Solution: []string{"a.go"}}, strings.Join(lines, "\n")+"\n")
	if !strings.Contains(fb, "line 31\n") || strings.Contains(fb, "line 30\n") || !strings.Contains(fb, "line 80") {
		t.Fatalf("feedback:\n%s", fb)
	}
}

// JavaScript's skipped tests are switched on in the workspace and again on every restore.
func TestJavaScriptSkippedTestsRun(t *testing.T) {
	root := t.TempDir()
	exercise(t, root, "javascript", "hello", map[string]string{
		".meta/config.json":     `{"files":{"solution":["hello.js"],"test":["hello.spec.js"],"example":[".meta/proof.ci.js"]}}`,
		".docs/instructions.md": "Say hello.", "hello.js": "", "hello.spec.js": "test('a', () => {});\nxtest('b', () => {});\n"})
	exs, err := Load(root, Selection{})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := Prepare(context.Background(), exs[0], ws); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "hello.spec.js"), []byte("changed"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := RestoreTests(exs[0], ws); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(ws, "hello.spec.js"))
	if err != nil || string(b) != "test('a', () => {});\ntest('b', () => {});\n" {
		t.Fatalf("restored test file %q, %v", b, err)
	}
}

// A results file cut in the middle of a line (a killed run) is read without that line, and
// --resume truncates it before appending, so every line stays whole JSON.
func TestResultsCutLineAndResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.jsonl")
	whole := `{"language":"go","exercise":"a","passed":false,"passed_on_try":null,"tries":2,"prompt_tokens":1,"completion_tokens":1,"cost_usd":0,"seconds":1,"error":""}` + "\n"
	if err := os.WriteFile(path, []byte(whole+`{"language":"go","exer`), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, done, err := OpenResults(path, true, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil || len(done) != 1 || done[0].Key() != "go/a" || done[0].PassedOnTry != nil {
		t.Fatalf("resume read %+v, %v", done, err)
	}
	try := 1
	if err := rs.Add(Result{Language: "go", Exercise: "b", Passed: true, PassedOnTry: &try, Tries: 1}); err != nil {
		t.Fatal(err)
	}
	if err := rs.Close(); err != nil {
		t.Fatal(err)
	}
	all, cut, err := ReadResults(path)
	if err != nil || cut != -1 || len(all) != 2 || all[1].Key() != "go/b" || *all[1].PassedOnTry != 1 {
		t.Fatalf("after resume: %+v, cut %d, %v", all, cut, err)
	}
}

// The table gives the pass rate after each try per language and overall, and the distance to a
// published rate.
func TestTable(t *testing.T) {
	one, two := 1, 2
	rs := []Result{
		{Language: "go", Exercise: "a", Passed: true, PassedOnTry: &one, Tries: 1, PromptTokens: 100, CompletionTokens: 10, CostUSD: 0.5, Seconds: 30},
		{Language: "go", Exercise: "b", Passed: true, PassedOnTry: &two, Tries: 2, PromptTokens: 200, CompletionTokens: 20, CostUSD: 0.25, Seconds: 30},
		{Language: "rust", Exercise: "c", Tries: 2, Error: "boom"},
		{Language: "rust", Exercise: "d", Tries: 2},
	}
	stats := Summarize(rs, 2)
	if len(stats) != 3 || stats[0].Rate(1) != 50 || stats[0].Rate(2) != 100 || stats[1].Rate(2) != 0 || stats[2].Rate(2) != 50 {
		t.Fatalf("stats: %+v", stats)
	}
	table := Table(stats, 2, 40)
	for _, want := range []string{"try 1", "try 2", "vs 40.0%", "+60.0", "-40.0", "+10.0", "$0.7500", "1m0s", "300"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
}

// The tests of an exercise run with a time limit: a test that hangs is stopped, and the
// output says so.
func TestTestTimeLimit(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go on PATH")
	}
	ws := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module slow\n\ngo 1.21\n",
		"slow_test.go": "package slow\n\nimport (\n\t\"testing\"\n\t\"time\"\n)\n\nfunc TestSlow(t *testing.T) { time.Sleep(time.Minute) }\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tc := &Toolchains{Env: os.Environ()}
	start := time.Now()
	run, err := tc.Test(context.Background(), Exercise{Language: "go", Name: "slow"}, ws, t.TempDir(), 8*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if run.Passed || !strings.Contains(run.Output, "did not finish within 8s") || time.Since(start) > 40*time.Second {
		t.Fatalf("run %+v after %s", run, time.Since(start))
	}
}

// Java's @Disabled tests are switched on in the workspace, as Aider's harness does.
func TestJavaDisabledTestsRun(t *testing.T) {
	got := string(enableSkipped("java", []byte("  @Disabled(\"Remove to run test\")\n  @Test\n  public void b() {}\n  @Disabled\n  @Test\n  public void c() {}\n")))
	if want := "  @Test\n  public void b() {}\n  @Test\n  public void c() {}\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// A C++ exercise is configured with every test on and built in the harness's scratch folder;
// the build runs the tests (the exercises' CMakeLists do), so a failing test fails the build.
func TestCppBuildRunsTheTests(t *testing.T) {
	if _, err := exec.LookPath("cmake"); err != nil {
		t.Skip("cmake is not installed")
	}
	cmake := "cmake_minimum_required(VERSION 3.10)\nproject(sum CXX)\nadd_executable(sum sum_test.cpp)\n" +
		"if(EXERCISM_RUN_ALL_TESTS)\n  target_compile_definitions(sum PRIVATE EXERCISM_RUN_ALL_TESTS)\nendif()\n" +
		"add_custom_command(TARGET sum POST_BUILD COMMAND sum)\n"
	test := "#include \"sum.h\"\nint main() {\n#ifdef EXERCISM_RUN_ALL_TESTS\n  return sum(1, 2) == 3 ? 0 : 1;\n#else\n  return 0;\n#endif\n}\n"
	for _, tc := range []struct {
		solution string
		pass     bool
	}{{"inline int sum(int a, int b) { return a + b; }\n", true}, {"inline int sum(int a, int b) { return a - b; }\n", false}} {
		ws, scratch := t.TempDir(), t.TempDir()
		for name, text := range map[string]string{"CMakeLists.txt": cmake, "sum_test.cpp": test, "sum.h": tc.solution} {
			if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		tcs := &Toolchains{Env: os.Environ()}
		if errs := tcs.Check(context.Background(), []string{"cpp"}); errs["cpp"] != nil {
			t.Skip(errs["cpp"])
		}
		run, err := tcs.Test(context.Background(), Exercise{Language: "cpp", Name: "sum"}, ws, scratch, 2*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if run.Passed != tc.pass {
			t.Errorf("solution %q: passed %v, want %v\n%s", tc.solution, run.Passed, tc.pass, run.Output)
		}
	}
}
