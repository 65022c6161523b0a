package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/agent"
	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/server/eval"
)

// evalOptions are the flags of `cairn eval polyglot`.
type evalOptions struct {
	dataset, languages, exercises, out, compare, work, cache, dataFlag *string
	shard                                                              *string
	limit, tries, parallel                                             *int
	agentic, resume, doneCheck                                         *bool
	testTimeout, taskTimeout                                           *time.Duration
	sf                                                                 *settingsFlags
}

// evalFlags defines the flags of `cairn eval polyglot`; Main reads the same set to find the
// key among them (keys.go).
func evalFlags(stdio IO) (*flag.FlagSet, *evalOptions) {
	fs := newFlags("eval polyglot", stdio)
	o := &evalOptions{sf: &settingsFlags{}}
	o.dataset = fs.String("dataset", "", "a checkout of the polyglot benchmark (LANG/exercises/practice/NAME)")
	o.languages = fs.String("languages", "", "comma list of the dataset's language folders to run (default: all)")
	o.exercises = fs.String("exercises", "", "comma list of LANG/NAME, or NAME for every language (default: all)")
	o.limit = fs.Int("limit", 0, "run only the first N exercises of each language (0: all)")
	o.tries = fs.Int("tries", 2, "test runs per exercise; a failure with tries left goes back to the task")
	o.parallel = fs.Int("parallel", runtime.NumCPU(), "exercises run at once")
	o.agentic = fs.Bool("agentic", false, "also offer and auto-approve commands (the agent may run the tests itself)")
	o.doneCheck = fs.Bool("done-check", false, "make the tests each task's \"done when\" check: a completion is accepted only once they pass (README, \"Done when\")")
	o.out = fs.String("out", "", "results file, one JSON line per exercise (default: a new results-DATE.jsonl; never overwritten)")
	o.resume = fs.Bool("resume", false, "go on with the results file (--out, default: the newest results-*.jsonl here), skipping the exercises already in it")
	o.shard = fs.String("shard", "", "K/N: run part K of N of the exercises, a stable split (one part per machine; merge with cairn eval report)")
	o.compare = fs.String("compare", "", "a published pass rate (percent) to compare the last try's rate with")
	o.testTimeout = fs.Duration("test-timeout", 3*time.Minute, "time limit of one test run")
	o.taskTimeout = fs.Duration("task-timeout", 30*time.Minute, "time limit of one exercise, all tries")
	o.work = fs.String("work", "", "folder for the workspaces, kept after the run (default: a temporary one, removed)")
	o.cache = fs.String("cache", "", "folder for tools installed once (default: the user cache dir's cairn/eval)")
	o.dataFlag = fs.String("data-dir", "", "data directory of the run's daemon, keeping its tasks (default: a temporary one)")
	o.sf.register(fs)
	return fs, o
}

// evalCommand is `cairn eval polyglot …` (README "Benchmark").
func evalCommand(ctx context.Context, args []string, stdio IO) int {
	if len(args) > 0 && args[0] == "report" {
		return evalReport(args[1:], stdio)
	}
	if len(args) == 0 || args[0] != "polyglot" {
		stdio.errf("cairn eval: the benchmark to run is required: cairn eval polyglot --dataset DIR (or cairn eval report FILE...)\n")
		return exitUsage
	}
	fs, o := evalFlags(stdio)
	if code, ok := parseFlags(fs, args[1:]); !ok {
		return code
	}
	fail := func(code int, format string, a ...any) int {
		stdio.errf("cairn eval: "+format+"\n", a...)
		return code
	}
	switch {
	case fs.NArg() > 0:
		return fail(exitUsage, "unexpected arguments: %s", strings.Join(fs.Args(), " "))
	case *o.dataset == "":
		return fail(exitUsage, "--dataset is required (a checkout of the polyglot benchmark; README \"Benchmark\")")
	case *o.tries < 1:
		return fail(exitUsage, "--tries must be at least 1")
	case *o.parallel < 1:
		return fail(exitUsage, "--parallel must be at least 1")
	case *o.limit < 0:
		return fail(exitUsage, "--limit must not be negative")
	}
	compare := -1.0
	if *o.compare != "" {
		v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(*o.compare), "%"), 64)
		if err != nil || v < 0 || v > 100 {
			return fail(exitUsage, "--compare must be a pass rate in percent, like 61.3")
		}
		compare = v
	}
	shard, err := eval.ParseShard(*o.shard)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	settings, err := o.sf.settings()
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	evalSettings(&settings, *o.agentic)
	exercises, err := eval.Load(*o.dataset, eval.Selection{Languages: commaList(*o.languages),
		Exercises: commaList(*o.exercises), Limit: *o.limit})
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	if exercises = shard.Of(exercises); len(exercises) == 0 {
		return fail(exitUsage, "part %d/%d of the selection holds no exercise", shard.K, shard.N)
	}
	log := slog.New(slog.NewTextHandler(stdio.Err, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if os.Getenv("CAIRN_DEBUG") != "" {
		log = logger(stdio.Err)
	}
	cache := *o.cache
	if cache == "" {
		base, err := os.UserCacheDir()
		if err != nil {
			return fail(exitFailure, "no cache folder (%v): give one with --cache", err)
		}
		cache = filepath.Join(base, "cairn", "eval")
	}
	// The tests run code the model wrote: they get no secret of the settings or the machine.
	tc := &eval.Toolchains{Env: settings.Secrets().Scrub(os.Environ()), CacheDir: cache, Progress: stdio.Err}
	// They run in the command sandbox too: the tests without the network (docs/architecture.md
	// "Benchmark"). Where none can be set up they run plainly, and the run says so.
	var why string
	if tc.Sandbox, why = agent.ProcessSandbox(settings, "", nil); why != "" {
		stdio.errf("cairn eval: warning: the tests run without the command sandbox: %s\n", why)
	}
	if code, ok := checkToolchains(ctx, tc, exercises, stdio); !ok {
		return code
	}
	if *o.out, err = resultsPath(*o.out, *o.resume, shard, time.Now()); err != nil {
		return fail(exitUsage, "%v", err)
	}
	results, done, err := eval.OpenResults(*o.out, *o.resume, log)
	if errors.Is(err, eval.ErrResultsExist) {
		return fail(exitUsage, "%s already holds results and is left as it is: add --resume to go on with it, "+
			"or give another --out (without --out each run writes a new dated file)", *o.out)
	}
	if err != nil {
		return fail(exitFailure, "results file: %v", err)
	}
	if !*o.resume {
		stdio.errf("cairn eval: results go to %s\n", *o.out)
	}
	defer func() {
		if err := results.Close(); err != nil {
			stdio.errf("cairn eval: closing %s: %v\n", *o.out, err)
		}
	}()
	todo := skipDone(exercises, done)
	if len(done) > 0 {
		stdio.errf("cairn eval: %d exercises already in %s, %d to run\n", len(exercises)-len(todo), *o.out, len(todo))
	}
	if err := tc.SetUp(ctx, todo); err != nil {
		return fail(exitFailure, "%v", err)
	}
	work, cleanup, err := tempUnless(*o.work, "cairn-eval-")
	if err != nil {
		return fail(exitFailure, "%v", err)
	}
	defer cleanup(stdio)
	data := *o.dataFlag
	if data == "" {
		data = filepath.Join(work, ".data")
	}
	start := time.Now()
	return privateDaemon(ctx, data, settings, stdio, func(c *client) int {
		fresh, err := eval.Run(ctx, eval.Config{Client: eval.Client{Tasks: c.tasks, UI: c.ui}, Toolchains: tc,
			Tries: *o.tries, Parallel: *o.parallel, Agentic: *o.agentic, DoneCheck: *o.doneCheck, TestTimeout: *o.testTimeout,
			TaskTimeout: *o.taskTimeout, WorkDir: work, Results: results, Done: done, Progress: stdio.Err, Bar: stdio.ErrTTY, Logger: log}, todo)
		all := append(done, fresh...)
		table := eval.Table(eval.Summarize(all, *o.tries), *o.tries, compare)
		if code := stdio.emit(table); code != exitOK {
			return code
		}
		stdio.errf("cairn eval: %d exercises in %s (this run: %d in %s)\n", len(all), *o.out, len(fresh),
			time.Since(start).Round(time.Second))
		switch {
		case ctx.Err() != nil:
			return fail(exitFailure, "interrupted; %s holds the finished exercises: run the same command with --resume to go on", *o.out)
		case err != nil:
			return fail(exitFailure, "%v", err)
		}
		return exitOK
	})
}

// evalSettings sets the protocol of a benchmark run over the user's model settings: edits and
// reads in the workspace approved, nothing else; commands offered and approved only when
// agentic; no browser.
func evalSettings(s *config.Settings, agentic bool) {
	a := &s.AutoApprove
	a.Enabled, a.ReadFiles, a.EditFiles = true, true, true
	a.ReadFilesOutside, a.EditFilesOutside, a.Browser, a.LocalNetwork, a.MCP, a.Protected, a.YOLO =
		false, false, false, false, false, false, false
	a.SafeCommands, a.AllCommands = agentic, agentic
	s.NoCommands = !agentic
	s.BrowserEnabled = false
}

// checkToolchains reports every language whose toolchain is missing, before anything runs.
func checkToolchains(ctx context.Context, tc *eval.Toolchains, exercises []eval.Exercise, stdio IO) (int, bool) {
	var langs []string
	for _, ex := range exercises {
		if len(langs) == 0 || langs[len(langs)-1] != ex.Language {
			langs = append(langs, ex.Language)
		}
	}
	problems := tc.Check(ctx, langs)
	sort.Strings(langs)
	bad := false
	for _, l := range langs {
		if err := problems[l]; err != nil {
			stdio.errf("cairn eval: %s: %v\n", l, err)
			bad = true
		}
	}
	if bad {
		stdio.errf("cairn eval: install what is missing, or leave those languages out with --languages\n")
		return exitFailure, false
	}
	return 0, true
}

// skipDone leaves out the exercises that already have a result.
func skipDone(exercises []eval.Exercise, done []eval.Result) []eval.Exercise {
	have := map[string]bool{}
	for _, r := range done {
		have[r.Key()] = true
	}
	var out []eval.Exercise
	for _, ex := range exercises {
		if !have[ex.Key()] {
			out = append(out, ex)
		}
	}
	return out
}

// tempUnless returns dir, made if needed and kept; or, when dir is "", a new temporary folder
// that cleanup removes.
func tempUnless(dir, pattern string) (string, func(IO), error) {
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", nil, err
		}
		return abs, func(IO) {}, os.MkdirAll(abs, 0o755)
	}
	tmp, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", nil, err
	}
	return tmp, func(stdio IO) {
		if err := os.RemoveAll(tmp); err != nil {
			stdio.errf("cairn eval: removing %s: %v\n", tmp, err)
		}
	}, nil
}

func commaList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// resultsPrefix and resultsSuffix name the dated results file a run writes without --out.
const (
	resultsPrefix = "results-"
	resultsSuffix = ".jsonl"
)

// resultsPath is the results file of a run: out when given; else with resume the newest
// dated file in the current folder, and without it a new dated one, so that no run ever
// overwrites another's results (README, "Benchmark").
func resultsPath(out string, resume bool, shard eval.Shard, now time.Time) (string, error) {
	if out != "" {
		return out, nil
	}
	if resume {
		names, err := filepath.Glob(resultsPrefix + "*" + shardSuffix(shard) + resultsSuffix)
		if err != nil {
			return "", err
		}
		if len(names) == 0 {
			return "", errors.New("--resume: no results-*.jsonl here to go on with: give it with --out")
		}
		sort.Strings(names) // the dates sort as the names do
		return names[len(names)-1], nil
	}
	base := resultsPrefix + now.UTC().Format("2006-01-02T150405Z") + shardSuffix(shard)
	for i := 1; ; i++ {
		name := base + resultsSuffix
		if i > 1 {
			name = fmt.Sprintf("%s-%d%s", base, i, resultsSuffix)
		}
		if _, err := os.Lstat(name); os.IsNotExist(err) {
			return name, nil
		} else if err != nil {
			return "", err
		}
	}
}

// shardSuffix names a sharded run's part in its results file.
func shardSuffix(s eval.Shard) string {
	if s.N <= 1 {
		return ""
	}
	return fmt.Sprintf("-part%dof%d", s.K, s.N)
}

// evalReport is `cairn eval report FILE...`: the results files of several runs or parts of
// one (--shard) merged into one summary table (README, "Benchmark"). An exercise in several
// files counts once, from the last file naming it.
func evalReport(args []string, stdio IO) int {
	fs := newFlags("eval report", stdio)
	tries := fs.Int("tries", 0, "try columns (default: the most tries in the files)")
	cmp := fs.String("compare", "", "a published pass rate (percent) to compare the last try's rate with")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() == 0 {
		stdio.errf("cairn eval report: results files are required: cairn eval report results-*.jsonl\n")
		return exitUsage
	}
	compare := -1.0
	if *cmp != "" {
		v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(*cmp), "%"), 64)
		if err != nil || v < 0 || v > 100 {
			stdio.errf("cairn eval report: --compare must be a pass rate in percent, like 61.3\n")
			return exitUsage
		}
		compare = v
	}
	byKey := map[string]eval.Result{}
	var order []string
	most := 1
	for _, name := range fs.Args() {
		rs, cut, err := eval.ReadResults(name)
		if err != nil {
			stdio.errf("cairn eval report: %v\n", err)
			return exitFailure
		}
		if cut >= 0 {
			stdio.errf("cairn eval report: %s: a last line cut short is left out\n", name)
		}
		for _, r := range rs {
			if _, dup := byKey[r.Key()]; !dup {
				order = append(order, r.Key())
			}
			byKey[r.Key()] = r
			most = max(most, r.Tries)
		}
	}
	if *tries > 0 {
		most = *tries
	}
	all := make([]eval.Result, 0, len(order))
	for _, k := range order {
		all = append(all, byKey[k])
	}
	if code := stdio.emit(eval.Table(eval.Summarize(all, most), most, compare)); code != exitOK {
		return code
	}
	stdio.errf("cairn eval report: %d exercises from %d files\n", len(all), fs.NArg())
	return exitOK
}
