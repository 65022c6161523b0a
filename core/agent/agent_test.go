package agent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cairnhq/cairn/core/config"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/task"
	"github.com/cairnhq/cairn/core/tools"
)

// fakeEnv is a daemon with settings that change and one editor.
type fakeEnv struct {
	// mu guards s and asked.
	mu    sync.Mutex
	s     config.Settings
	asked []string // editor ids asked for
}

func (e *fakeEnv) Settings() config.Settings {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.s
}

func (e *fakeEnv) set(fn func(*config.Settings)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	fn(&e.s)
}

func (e *fakeEnv) Editor(id string, fallback tools.Host) (tools.Host, string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asked = append(e.asked, id)
	return fallback, "Fake Editor"
}

func newEnv() *fakeEnv {
	s := config.Default()
	s.API.BaseURL, s.API.APIKey, s.API.Model = "http://127.0.0.1:1/v1", "k", "fake-model"
	return &fakeEnv{s: s}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDepsRefusesWhatTheUserMustFix(t *testing.T) {
	env := newEnv()
	a := New(env, Config{})
	if _, err := a.Deps(context.Background(), task.Options{}); !errors.Is(err, ErrNoWorkspace) || !errors.Is(err, task.ErrBadRequest) {
		t.Fatalf("no workspace: %v", err)
	}
	env.set(func(s *config.Settings) { s.API.BaseURL, s.API.APIKey = "", "" })
	if _, err := a.Deps(context.Background(), task.Options{Workspace: []string{t.TempDir()}}); !errors.Is(err, ErrNoModel) {
		t.Fatalf("no model: %v", err)
	}
}

// A task's turns follow the environment: the editor it names, the rules on disk and their
// toggles, mentions in user text; Close releases what the task held.
func TestTurnsFollowTheEnvironment(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, ".clinerules", "style.md"), "Always answer in haiku.")
	write(t, filepath.Join(root, "notes.txt"), "remember the milk\n")
	env := newEnv()
	a := New(env, Config{DataDir: "", GlobalRulesDir: filepath.Join(t.TempDir(), "none")})
	d, err := a.Deps(context.Background(), task.Options{Workspace: []string{root}, HostID: "window-1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(env.asked) != 1 || env.asked[0] != "window-1" {
		t.Fatalf("editors asked for: %v", env.asked)
	}
	sys := d.Turns.SystemPrompt(task.ModeAct, d.ModelInfo, nil)
	if !strings.Contains(sys, "Always answer in haiku.") || !strings.Contains(sys, "Fake Editor") {
		t.Fatalf("the prompt lacks the rule or the editor's name")
	}
	// Toggling the rule off changes the next prompt: rules are read for every prompt.
	env.set(func(s *config.Settings) { s.RuleToggles = map[string]bool{"clinerules:.clinerules/style.md": false} })
	d2, err := a.Deps(context.Background(), task.Options{Workspace: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(d2.Turns.SystemPrompt(task.ModeAct, d2.ModelInfo, nil), "haiku") {
		t.Fatal("a rule switched off is still in the prompt")
	}
	if got := d.Turns.ExpandUser(context.Background(), "see @/notes.txt"); !strings.Contains(got, "remember the milk") {
		t.Fatalf("mention not expanded: %q", got)
	}
	if hash, err := d.Turns.Checkpoint(context.Background()); hash != "" || err != nil {
		t.Fatalf("checkpoints are off without a data dir: %q %v", hash, err)
	}
	for _, dd := range []task.Deps{d, d2} {
		if err := dd.Turns.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// With NoCommands a task has no execute_command: not in its registry, not in its prompt
// (cairn eval's default protocol); without it both have it.
func TestNoCommandsLeavesExecuteCommandOut(t *testing.T) {
	for _, off := range []bool{false, true} {
		env := newEnv()
		env.set(func(s *config.Settings) { s.NoCommands = off })
		a := New(env, Config{GlobalRulesDir: filepath.Join(t.TempDir(), "none")})
		d, err := a.Deps(context.Background(), task.Options{Workspace: []string{t.TempDir()}})
		if err != nil {
			t.Fatal(err)
		}
		_, has := d.Registry.Get("execute_command")
		inPrompt := strings.Contains(d.Turns.SystemPrompt(task.ModeAct, d.ModelInfo, nil), "<execute_command>")
		if has == off || inPrompt == off {
			t.Errorf("NoCommands=%v: registry has execute_command %v, prompt shows it %v", off, has, inPrompt)
		}
		if _, ok := d.Registry.Get("write_to_file"); !ok {
			t.Errorf("NoCommands=%v: write_to_file is missing", off)
		}
		if err := d.Turns.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// The background parameter and the two tools on background commands reach the model in both
// tool formats: the XML prompt's tool section and the native function schemas.
func TestBackgroundCommandsInBothSchemas(t *testing.T) {
	a := New(newEnv(), Config{GlobalRulesDir: filepath.Join(t.TempDir(), "none")})
	d, err := a.Deps(context.Background(), task.Options{Workspace: []string{t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Turns.Close(); err != nil {
			t.Error(err)
		}
	})
	xml := d.Turns.SystemPrompt(task.ModeAct, d.ModelInfo, nil)
	for _, want := range []string{"<background>", "<read_command_output>", "<stop_command>", "after 60 seconds moves to the"} {
		if !strings.Contains(xml, want) {
			t.Errorf("the XML prompt lacks %q", want)
		}
	}
	defs := prompt.ToolDefinitions(d.Registry.OfferedSpecs(), false)
	found := map[string]string{}
	for _, def := range defs {
		found[def.Name] = string(def.Parameters)
	}
	if !strings.Contains(found["execute_command"], `"background"`) {
		t.Errorf("native execute_command schema = %s; want a background property", found["execute_command"])
	}
	for _, name := range []string{"read_command_output", "stop_command"} {
		if !strings.Contains(found[name], `"id"`) {
			t.Errorf("native %s schema = %q; want an id property", name, found[name])
		}
	}
}
