// Package eval runs coding benchmarks through Cairn's own agent loop (`cairn eval`, README
// "Benchmark"): it reads the Aider polyglot benchmark, gives each exercise to a task of the
// daemon in a fresh workspace, runs the exercise's tests after each try, sends their failures
// back to the same task, and keeps one JSON line per exercise and a table per language.
//
// It drives tasks only through the daemon's gRPC services (the client it is given), exactly as
// `cairn run` does; the agent loop is the daemon's.
package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Exercise is one exercise of the benchmark: LANG/exercises/practice/NAME in the dataset.
type Exercise struct {
	// Language is the dataset's folder name (go, python, rust, javascript, …).
	Language string
	Name     string
	// Dir is the exercise's folder in the dataset.
	Dir string
	// Solution, Test and Example are the files .meta/config.json names, relative to Dir.
	Solution, Test, Example []string
}

// Key names the exercise in the results file and in --exercises: LANG/NAME.
func (e Exercise) Key() string { return e.Language + "/" + e.Name }

// Selection says which exercises of a dataset to run.
type Selection struct {
	// Languages keeps only these folder names (empty: every language the dataset has).
	Languages []string
	// Exercises keeps only these: "LANG/NAME", or "NAME" for that exercise in every language
	// (empty: all).
	Exercises []string
	// Limit keeps the first Limit exercises of each language, in name order (0: all).
	Limit int
}

// metaConfig is the part of .meta/config.json the harness reads.
type metaConfig struct {
	Files struct {
		Solution []string `json:"solution"`
		Test     []string `json:"test"`
		Example  []string `json:"example"`
	} `json:"files"`
}

// Load lists the dataset's exercises that sel selects, by language then name. A name in
// sel.Exercises that selects nothing is an error: a typo would otherwise run nothing silently.
func Load(dataset string, sel Selection) ([]Exercise, error) {
	langs := sel.Languages
	if len(langs) == 0 {
		entries, err := os.ReadDir(dataset)
		if err != nil {
			return nil, fmt.Errorf("reading the dataset: %w", err)
		}
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				if _, err := os.Stat(filepath.Join(dataset, e.Name(), "exercises", "practice")); err == nil {
					langs = append(langs, e.Name())
				}
			}
		}
		if len(langs) == 0 {
			return nil, fmt.Errorf("%s has no LANGUAGE/exercises/practice folders: is it a checkout of the polyglot benchmark?", dataset)
		}
	}
	sort.Strings(langs)
	used := map[string]bool{}
	var out []Exercise
	for _, lang := range slices.Compact(langs) {
		practice := filepath.Join(dataset, lang, "exercises", "practice")
		entries, err := os.ReadDir(practice)
		if err != nil {
			return nil, fmt.Errorf("language %s: %w", lang, err)
		}
		n := 0
		for _, e := range entries {
			if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
				continue
			}
			if len(sel.Exercises) > 0 {
				hit := false
				for _, want := range sel.Exercises {
					if want == e.Name() || want == lang+"/"+e.Name() {
						used[want], hit = true, true
					}
				}
				if !hit {
					continue
				}
			}
			if sel.Limit > 0 && n >= sel.Limit {
				break
			}
			ex, err := readExercise(lang, e.Name(), filepath.Join(practice, e.Name()))
			if err != nil {
				return nil, err
			}
			out = append(out, ex)
			n++
		}
	}
	for _, want := range sel.Exercises {
		if !used[want] {
			return nil, fmt.Errorf("--exercises: %q matches no exercise of the languages %s", want, strings.Join(langs, ","))
		}
	}
	return out, nil
}

func readExercise(lang, name, dir string) (Exercise, error) {
	b, err := os.ReadFile(filepath.Join(dir, ".meta", "config.json"))
	if err != nil {
		return Exercise{}, fmt.Errorf("exercise %s/%s: %w", lang, name, err)
	}
	var c metaConfig
	if err := json.Unmarshal(b, &c); err != nil {
		return Exercise{}, fmt.Errorf("exercise %s/%s: .meta/config.json: %w", lang, name, err)
	}
	if len(c.Files.Solution) == 0 || len(c.Files.Test) == 0 {
		return Exercise{}, fmt.Errorf("exercise %s/%s: .meta/config.json names no solution or test file", lang, name)
	}
	return Exercise{Language: lang, Name: name, Dir: dir,
		Solution: c.Files.Solution, Test: c.Files.Test, Example: c.Files.Example}, nil
}

// Instructions is the exercise's .docs/instructions.md followed by instructions.append.md
// when there is one.
func (e Exercise) Instructions() (string, error) {
	var parts []string
	for _, name := range []string{"instructions.md", "instructions.append.md"} {
		b, err := os.ReadFile(filepath.Join(e.Dir, ".docs", name))
		if os.IsNotExist(err) && name != "instructions.md" {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("exercise %s: %w", e.Key(), err)
		}
		parts = append(parts, strings.TrimSpace(string(b)))
	}
	return strings.Join(parts, "\n\n"), nil
}
