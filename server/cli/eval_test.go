package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/llm/llmtest"
	"github.com/cairnhq/cairn/server/cli"
	"github.com/cairnhq/cairn/server/eval"
)

// polyglot is a checkout of the benchmark (README, "Benchmark"): $CAIRN_POLYGLOT, else the
// copy the test machines keep in a data folder beside the repository. Tests skip without one.
func polyglot(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CAIRN_POLYGLOT"); p != "" {
		return p
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	var roots []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			roots = append(roots, d)
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if out, err := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-common-dir").Output(); err == nil {
		roots = append(roots, filepath.Dir(strings.TrimSpace(string(out))))
	}
	for _, r := range roots {
		p := filepath.Join(r, "..", "shared", "data", "polyglot-benchmark")
		if _, err := os.Stat(filepath.Join(p, "go")); err == nil {
			return p
		}
	}
	t.Skipf("no checkout of the polyglot benchmark: set CAIRN_POLYGLOT (README, \"Benchmark\"); none beside %v", roots)
	return ""
}

// evalSet is a small selection: two exercises of Go and Python, one of Rust (cargo is slow).
var evalSet = []string{"go/octal", "go/trinary", "python/transpose", "python/proverb", "rust/accumulate"}

func loadSet(t *testing.T, ds string, keys []string) []eval.Exercise {
	t.Helper()
	exs, err := eval.Load(ds, eval.Selection{Exercises: keys})
	if err != nil {
		t.Fatal(err)
	}
	if len(exs) != len(keys) {
		t.Fatalf("loaded %d exercises for %v", len(exs), keys)
	}
	return exs
}

// marker is how a scripted route recognises an exercise's task: its first line.
func marker(ex eval.Exercise) string { return "Exercise: " + ex.Name + " (" + ex.Language + ")" }

// writeReference is the turns that write the exercise's reference solution (.meta's example
// files, read here by the test: the agent never sees them), each to the solution file with
// the same extension.
func writeReference(t *testing.T, ex eval.Exercise) []llmtest.Turn {
	t.Helper()
	var turns []llmtest.Turn
	for _, ef := range ex.Example {
		b, err := os.ReadFile(filepath.Join(ex.Dir, ef))
		if err != nil {
			t.Fatal(err)
		}
		target := ""
		for _, s := range ex.Solution {
			if filepath.Ext(s) == filepath.Ext(ef) {
				target = s
			}
		}
		if target == "" {
			t.Fatalf("%s: no solution file for %s", ex.Key(), ef)
		}
		turns = append(turns, llmtest.Turn{Text: "Writing the solution.\n<write_to_file>\n<path>" + target +
			"</path>\n<content>\n" + string(b) + "</content>\n</write_to_file>"})
	}
	return turns
}

// evalCLI runs `cairn eval polyglot` on the exercises against a scripted model.
func evalCLI(t *testing.T, ds string, script llmtest.Script, keys []string, args ...string) (code int, stderr, out, work string, srv *llmtest.Server) {
	t.Helper()
	srv = llmtest.New(t, script)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("CAIRN_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	work = t.TempDir()
	out = filepath.Join(t.TempDir(), "results.jsonl")
	var stdout, errb bytes.Buffer
	full := append([]string{"eval", "polyglot", "--dataset", ds, "--exercises", strings.Join(keys, ","),
		"--base-url", srv.URL(), "--api-key", "k", "--model", "m", "--out", out, "--work", work,
		"--cache", t.TempDir(), "--parallel", "3"}, args...)
	code = cli.Run(context.Background(), full, cli.IO{In: strings.NewReader(""), Out: &stdout, Err: &errb})
	if err := srv.Err(); err != nil {
		t.Error(err)
	}
	return code, stdout.String() + errb.String(), out, work, srv
}

func readResults(t *testing.T, path string) map[string]map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("results line %q: %v", sc.Text(), err)
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		// Every line has the base fields; lines this version wrote also have the health figures
		// (and price_unknown for a model without prices); nothing else.
		base := []string{"completion_tokens", "cost_usd", "error", "exercise", "language", "passed", "passed_on_try",
			"prompt_tokens", "seconds", "tries"}
		health := []string{"context_exhausted", "malformed_replies", "replies", "test_timeouts", "timeouts"}
		want := slices.Clone(base)
		if _, ok := m["replies"]; ok {
			want = append(want, health...)
		}
		if _, ok := m["price_unknown"]; ok { // the scripted model has no prices
			want = append(want, "price_unknown")
		}
		sort.Strings(want)
		if !reflect.DeepEqual(keys, want) {
			t.Fatalf("results line has the fields %v, want exactly %v", keys, want)
		}
		out[m["language"].(string)+"/"+m["exercise"].(string)] = m
	}
	return out
}

// noMeta checks that no request the model received names .meta and no workspace has .meta or
// .docs.
func noMeta(t *testing.T, srv *llmtest.Server, work string, exs []eval.Exercise) {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("the model received no request")
	}
	for i, r := range reqs {
		if bytes.Contains(r.Raw, []byte(".meta")) {
			t.Fatalf("request %d names .meta", i)
		}
	}
	for _, ex := range exs {
		for _, h := range []string{".meta", ".docs"} {
			if _, err := os.Stat(filepath.Join(work, ex.Language, ex.Name, h)); !os.IsNotExist(err) {
				t.Fatalf("workspace of %s has %s (%v)", ex.Key(), h, err)
			}
		}
	}
}

// A model that writes the reference solution passes every exercise on its first try; the task
// starts with the exercise line, and neither the prompts nor the workspaces hold .meta.
func TestEvalReferenceSolutionPassesOnTry1(t *testing.T) {
	ds := polyglot(t)
	exs := loadSet(t, ds, evalSet)
	var routes []llmtest.Route
	for _, ex := range exs {
		routes = append(routes, llmtest.Route{FirstUserContains: marker(ex),
			Turns: append(writeReference(t, ex), llmtest.Turn{Text: completion})})
	}
	code, logs, out, work, srv := evalCLI(t, ds, llmtest.Script{Routes: routes}, evalSet)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, logs)
	}
	res := readResults(t, out)
	for _, ex := range exs {
		r := res[ex.Key()]
		if r == nil || r["passed"] != true || r["passed_on_try"] != 1.0 || r["tries"] != 1.0 || r["error"] != "" {
			t.Errorf("%s: %v\n%s", ex.Key(), r, logs)
		}
		if r != nil && r["prompt_tokens"].(float64) <= 0 {
			t.Errorf("%s: no prompt tokens counted: %v", ex.Key(), r)
		}
	}
	noMeta(t, srv, work, exs)
	for _, r := range srv.Requests() {
		first := ""
		for _, m := range r.Messages {
			if m.Role == "user" {
				first = m.Text
				break
			}
		}
		if !strings.Contains(first, "Exercise: ") || strings.Contains(r.LastUser(), "execute_command") {
			t.Fatalf("a task does not start with its exercise line:\n%.300s", first)
		}
		if bytes.Contains(r.Raw, []byte("<execute_command>")) {
			t.Fatal("execute_command is offered without --agentic")
		}
	}
	for _, want := range []string{"100.0%", "go", "python", "rust", "pass rate 100.0% (5/5)"} {
		if !strings.Contains(logs, want) {
			t.Errorf("output lacks %q:\n%s", want, logs)
		}
	}
}

// A model that writes the solution only after it is shown the failing tests passes on try 2;
// one that only claims to be done passes nothing and uses both tries.
func TestEvalFeedbackSecondTryAndClaimsOnly(t *testing.T) {
	ds := polyglot(t)
	keys := []string{"go/octal", "python/proverb", "go/trinary", "python/transpose"}
	exs := loadSet(t, ds, keys)
	var routes []llmtest.Route
	for i, ex := range exs {
		var turns []llmtest.Turn
		if i < 2 { // learns from the tests
			turns = append(turns, llmtest.Turn{Text: completion})
			ref := writeReference(t, ex)
			ref[0].Expect = &llmtest.Expect{LastUserContains: []string{"The tests failed", "```"}}
			turns = append(turns, ref...)
			turns = append(turns, llmtest.Turn{Text: completion})
		} else { // only claims
			turns = []llmtest.Turn{{Text: completion}, {Text: completion,
				Expect: &llmtest.Expect{LastUserContains: []string{"The tests failed"}}}}
		}
		routes = append(routes, llmtest.Route{FirstUserContains: marker(ex), Turns: turns})
	}
	code, logs, out, work, srv := evalCLI(t, ds, llmtest.Script{Routes: routes}, keys, "--compare", "50")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, logs)
	}
	res := readResults(t, out)
	for i, ex := range exs {
		r := res[ex.Key()]
		switch {
		case r == nil:
			t.Fatalf("%s has no result\n%s", ex.Key(), logs)
		case i < 2 && (r["passed"] != true || r["passed_on_try"] != 2.0 || r["tries"] != 2.0):
			t.Errorf("%s should pass on try 2: %v", ex.Key(), r)
		case i >= 2 && (r["passed"] != false || r["passed_on_try"] != nil || r["tries"] != 2.0):
			t.Errorf("%s should fail after 2 tries: %v", ex.Key(), r)
		}
	}
	noMeta(t, srv, work, exs)
	// Each language: one of two passed, none on try 1; the last try is at the published 50%.
	for _, want := range []string{"0.0%", "50.0%", "+0.0", "vs 50.0%"} {
		if !strings.Contains(logs, want) {
			t.Errorf("table lacks %q:\n%s", want, logs)
		}
	}
}

// A test file the agent rewrote to pass is put back before the tests run: the exercise fails,
// and the workspace holds the original test file.
func TestEvalRestoresEditedTests(t *testing.T) {
	ds := polyglot(t)
	exs := loadSet(t, ds, []string{"go/octal"})
	ex := exs[0]
	cheat := "package octal\n\nimport \"testing\"\n\nfunc TestNothing(t *testing.T) {}\n"
	script := llmtest.Script{Routes: []llmtest.Route{{FirstUserContains: marker(ex), Turns: []llmtest.Turn{
		{Text: "<write_to_file>\n<path>" + ex.Test[0] + "</path>\n<content>\n" + cheat + "</content>\n</write_to_file>"},
		{Text: completion, Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for '" + ex.Test[0] + "'] Result:"}}},
	}}}}
	code, logs, out, work, _ := evalCLI(t, ds, script, []string{"go/octal"}, "--tries", "1")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, logs)
	}
	if r := readResults(t, out)["go/octal"]; r == nil || r["passed"] != false || r["tries"] != 1.0 {
		t.Fatalf("the cheat passed: %v\n%s", r, logs)
	}
	got, err := os.ReadFile(filepath.Join(work, "go", "octal", ex.Test[0]))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join(ex.Dir, ex.Test[0]))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the test file was not restored:\n%s", got)
	}
}

// --resume keeps the file's lines and runs only the exercises it lacks; a last line cut short
// (an interrupted write) is dropped first.
func TestEvalResume(t *testing.T) {
	ds := polyglot(t)
	exs := loadSet(t, ds, []string{"go/octal", "go/trinary"})
	// A first reply without any tool call is a malformed one (the run's health).
	turns := append([]llmtest.Turn{{Text: "I will think about it."}}, writeReference(t, exs[1])...)
	script := llmtest.Script{Routes: []llmtest.Route{{FirstUserContains: marker(exs[1]),
		Turns: append(turns, llmtest.Turn{Text: completion})}}}
	srv := llmtest.New(t, script)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	out := filepath.Join(t.TempDir(), "results.jsonl")
	prior := `{"language":"go","exercise":"octal","passed":true,"passed_on_try":1,"tries":1,"prompt_tokens":10,` +
		`"completion_tokens":5,"cost_usd":0.01,"seconds":3,"error":""}` + "\n" + `{"language":"go","exercise":"tri`
	if err := os.WriteFile(out, []byte(prior), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"eval", "polyglot", "--dataset", ds, "--exercises", "go/octal,go/trinary",
		"--base-url", srv.URL(), "--api-key", "k", "--model", "m", "--out", out, "--resume", "--cache", t.TempDir()},
		cli.IO{In: strings.NewReader(""), Out: &stdout, Err: &errb})
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), errb.String())
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	for _, r := range srv.Requests() {
		if bytes.Contains(r.Raw, []byte("Exercise: octal")) {
			t.Fatal("octal ran again although the file has it")
		}
	}
	res := readResults(t, out)
	if len(res) != 2 || res["go/trinary"]["passed"] != true || res["go/octal"]["prompt_tokens"] != 10.0 {
		t.Fatalf("results after --resume: %v", res)
	}
	// The scripted model has no prices: its cost is unknown, never "$0.0000", in the results,
	// the progress line and the table.
	logs := stdout.String() + errb.String()
	if r := res["go/trinary"]; r["replies"].(float64) < 3 || r["malformed_replies"] != 1.0 || r["timeouts"] != 0.0 ||
		r["context_exhausted"] != 0.0 || r["test_timeouts"] != 0.0 || !strings.Contains(logs, "well-formed") {
		t.Fatalf("health figures:\n%v\n%s", r, logs)
	}
	if res["go/trinary"]["price_unknown"] != true || strings.Contains(logs, "$0.0000") || strings.Count(logs, "price unknown") < 2 {
		t.Fatalf("an unpriced model's cost:\n%v\n%s", res["go/trinary"], logs)
	}
}

// A missing toolchain is reported per language before anything runs.
func TestEvalReportsMissingToolchains(t *testing.T) {
	ds := polyglot(t)
	srv := llmtest.New(t, llmtest.Script{})
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("PATH", t.TempDir()) // no go, no cargo, no python
	out := filepath.Join(t.TempDir(), "results.jsonl")
	var stdout, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"eval", "polyglot", "--dataset", ds, "--exercises", "go/octal,rust/accumulate",
		"--base-url", srv.URL(), "--api-key", "k", "--out", out, "--cache", t.TempDir()},
		cli.IO{In: strings.NewReader(""), Out: &stdout, Err: &errb})
	if code != 1 {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	for _, want := range []string{"go: go not found", "rust: cargo not found"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
	if len(srv.Requests()) > 0 {
		t.Fatal("the model was asked although toolchains are missing")
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("a results file was made: %v", err)
	}
}

// JavaScript: the test tools come from npm once into the shared cache (the user cache dir, so
// later runs reuse them); a stub fails its first try and the reference passes on the second.
func TestEvalJavaScript(t *testing.T) {
	ds := polyglot(t)
	cacheBase, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{"javascript/sum-of-multiples"}
	ex := loadSet(t, ds, keys)[0]
	turns := append([]llmtest.Turn{{Text: completion}}, writeReference(t, ex)...)
	turns = append(turns, llmtest.Turn{Text: completion})
	srv := llmtest.New(t, llmtest.Script{Routes: []llmtest.Route{{FirstUserContains: marker(ex), Turns: turns}}})
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	out := filepath.Join(t.TempDir(), "results.jsonl")
	work := t.TempDir()
	var stdout, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"eval", "polyglot", "--dataset", ds, "--exercises", strings.Join(keys, ","),
		"--base-url", srv.URL(), "--api-key", "k", "--model", "m", "--out", out, "--work", work,
		"--cache", filepath.Join(cacheBase, "cairn", "eval")}, cli.IO{In: strings.NewReader(""), Out: &stdout, Err: &errb})
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout.String(), errb.String())
	}
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}
	r := readResults(t, out)["javascript/sum-of-multiples"]
	if r == nil || r["passed_on_try"] != 2.0 {
		t.Fatalf("result %v\n%s", r, errb.String())
	}
	// The link to the shared tools is gone after the tests: the workspace is the exercise's.
	if _, err := os.Lstat(filepath.Join(work, "javascript", "sum-of-multiples", "node_modules")); !os.IsNotExist(err) {
		t.Fatalf("node_modules left in the workspace: %v", err)
	}
}

// The pause after many auto-approved actions in a row (20 by default) is answered: a model
// that reads 25 times before writing the solution still passes, without an error.
func TestEvalGoesOnAfterManyAutoApprovals(t *testing.T) {
	ds := polyglot(t)
	keys := []string{"go/trinary"}
	ex := loadSet(t, ds, keys)[0]
	var turns []llmtest.Turn
	for i := range 25 {
		file := ex.Solution[0]
		if i%2 == 1 {
			file = "go.mod" // the same call three times in a row is stopped as a loop
		}
		turns = append(turns, llmtest.Turn{Text: "<read_file>\n<path>" + file + "</path>\n</read_file>"})
	}
	turns = append(turns, writeReference(t, ex)...)
	turns = append(turns, llmtest.Turn{Text: completion})
	code, logs, out, _, _ := evalCLI(t, ds, llmtest.Script{Routes: []llmtest.Route{{FirstUserContains: marker(ex), Turns: turns}}},
		keys, "--tries", "1")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, logs)
	}
	if r := readResults(t, out)["go/trinary"]; r == nil || r["passed"] != true || r["error"] != "" {
		t.Fatalf("result %v\n%s", r, logs)
	}
}

// --agentic offers execute_command and approves it: the model runs the tests itself.
func TestEvalAgenticRunsCommands(t *testing.T) {
	ds := polyglot(t)
	keys := []string{"go/octal"}
	ex := loadSet(t, ds, keys)[0]
	turns := []llmtest.Turn{{Text: "<execute_command>\n<command>go test ./...</command>\n<requires_approval>false</requires_approval>\n</execute_command>",
		Expect: &llmtest.Expect{Contains: []string{"<execute_command>", "go test ./..."}}}}
	turns = append(turns, writeReference(t, ex)...)
	turns[1].Expect = &llmtest.Expect{LastUserContains: []string{"[execute_command for 'go test ./...'] Result:", "FAIL"}}
	turns = append(turns, llmtest.Turn{Text: completion})
	code, logs, out, _, _ := evalCLI(t, ds, llmtest.Script{Routes: []llmtest.Route{{FirstUserContains: marker(ex), Turns: turns}}},
		keys, "--agentic", "--tries", "1")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, logs)
	}
	if r := readResults(t, out)["go/octal"]; r == nil || r["passed"] != true {
		t.Fatalf("result %v\n%s", r, logs)
	}
}

// A run without --resume never overwrites a results file that holds results: it refuses and
// says how to go on; without --out each run writes a new dated file (README, "Benchmark").
func TestEvalNeverOverwritesResults(t *testing.T) {
	ds := polyglot(t)
	srv := llmtest.New(t, llmtest.Script{})
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	out := filepath.Join(t.TempDir(), "results.jsonl")
	prior := `{"language":"go","exercise":"octal","passed":true,"passed_on_try":1,"tries":1,"prompt_tokens":10,` +
		`"completion_tokens":5,"cost_usd":0.01,"seconds":3,"error":""}` + "\n"
	if err := os.WriteFile(out, []byte(prior), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"eval", "polyglot", "--dataset", ds, "--exercises", "go/octal",
		"--base-url", srv.URL(), "--api-key", "k", "--model", "m", "--out", out, "--cache", t.TempDir()},
		cli.IO{In: strings.NewReader(""), Out: &stdout, Err: &errb})
	if code == 0 || !strings.Contains(errb.String(), "--resume") {
		t.Fatalf("a second run on a results file: exit %d\n%s%s", code, stdout.String(), errb.String())
	}
	if b, err := os.ReadFile(out); err != nil || string(b) != prior {
		t.Fatalf("the results file changed: %q %v", b, err)
	}
	if len(srv.Requests()) != 0 {
		t.Fatal("the refused run asked the model")
	}
}

// `cairn eval report` merges the results files of a run's parts into one table.
func TestEvalReportMergesParts(t *testing.T) {
	dir := t.TempDir()
	line := func(lang, ex string, passed bool) string {
		try := "null"
		if passed {
			try = "1"
		}
		return fmt.Sprintf(`{"language":%q,"exercise":%q,"passed":%v,"passed_on_try":%s,"tries":2,"prompt_tokens":10,`+
			`"completion_tokens":5,"cost_usd":0.01,"seconds":3,"error":""}`+"\n", lang, ex, passed, try)
	}
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(a, []byte(line("go", "octal", true)+line("go", "trinary", false)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(line("python", "proverb", true)+line("python", "transpose", true)), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"eval", "report", a, b}, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"go", "python", "all", "75.0%", "4 exercises from 2 files"} {
		if !strings.Contains(out.String()+errb.String(), want) {
			t.Errorf("report lacks %q:\n%s%s", want, out.String(), errb.String())
		}
	}
	if code := cli.Run(context.Background(), []string{"eval", "polyglot", "--dataset", dir, "--shard", "5/4"},
		cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 2 {
		t.Fatalf("--shard 5/4: exit %d", code)
	}
}

// With --done-check the tests are each task's "done when" check (README, "Done when"): a model
// that claims to be done is shown the failing tests inside its task, writes the solution and
// passes on its only try.
func TestEvalDoneCheck(t *testing.T) {
	ds := polyglot(t)
	exs := loadSet(t, ds, []string{"go/octal"})
	ex := exs[0]
	ref := writeReference(t, ex)
	ref[0].Expect = &llmtest.Expect{LastUserContains: []string{"The completion was refused", "go test ./...", "FAIL"}}
	turns := append([]llmtest.Turn{{Text: completion}}, ref...)
	turns = append(turns, llmtest.Turn{Text: completion})
	script := llmtest.Script{Routes: []llmtest.Route{{FirstUserContains: marker(ex), Turns: turns}}}
	code, logs, out, _, _ := evalCLI(t, ds, script, []string{"go/octal"}, "--tries", "1", "--done-check")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, logs)
	}
	if r := readResults(t, out)["go/octal"]; r == nil || r["passed"] != true || r["passed_on_try"] != 1.0 {
		t.Fatalf("go/octal should pass on its only try: %v\n%s", r, logs)
	}
}
