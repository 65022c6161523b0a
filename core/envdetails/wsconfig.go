package envdetails

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairnhq/cairn/core/workspace"
)

// projectFiles are the files at a root that say what kind of project it is.
var projectFiles = []string{
	"go.mod", "go.work", "package.json", "tsconfig.json", "deno.json", "pyproject.toml",
	"requirements.txt", "setup.py", "Pipfile", "Cargo.toml", "pom.xml", "build.gradle",
	"build.gradle.kts", "Gemfile", "composer.json", "mix.exs", "pubspec.yaml", "Package.swift",
	"CMakeLists.txt", "Makefile", "Dockerfile", "docker-compose.yml", "compose.yaml",
}

// gitTimeout bounds each git call: a hung repository (network file system, lock) must not hold
// up the first turn.
const gitTimeout = 2 * time.Second

type rootConfig struct {
	Name         string   `json:"name"`
	Path         string   `json:"path"`
	ProjectFiles []string `json:"projectFiles,omitempty"`
	Git          *gitInfo `json:"git,omitempty"`
}

type gitInfo struct {
	Branch  string            `json:"branch,omitempty"`
	Remotes map[string]string `json:"remotes,omitempty"`
}

// workspaceConfig renders the roots' project files and git state as indented JSON.
func workspaceConfig(ctx context.Context, ws *workspace.Workspace) string {
	var roots []rootConfig
	for _, r := range ws.Roots() {
		c := rootConfig{Name: r.Name, Path: r.Path}
		for _, name := range projectFiles {
			p := filepath.Join(r.Path, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && !ws.Ignored(p) {
				c.ProjectFiles = append(c.ProjectFiles, name)
			}
		}
		c.Git = gitState(ctx, r.Path)
		roots = append(roots, c)
	}
	// One root a line: short, and still JSON.
	var b strings.Builder
	b.WriteString("{\n  \"workspaces\": [\n")
	for i, r := range roots {
		var line bytes.Buffer
		enc := json.NewEncoder(&line)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(r) // plain structs of strings: encoding cannot fail
		b.WriteString("    " + strings.TrimSuffix(line.String(), "\n"))
		if i < len(roots)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  ]\n}")
	return b.String()
}

// gitState asks the real git for the branch and remotes of the repository holding dir; nil when
// dir is in no repository or git is missing.
func gitState(ctx context.Context, dir string) *gitInfo {
	branch, err := git(ctx, dir, "symbolic-ref", "--short", "-q", "HEAD")
	if err != nil {
		// Detached HEAD (exit 1) still has a commit; outside a repository this fails too.
		sha, err := git(ctx, dir, "rev-parse", "--short", "HEAD")
		if err != nil {
			return nil
		}
		branch = "(detached at " + sha + ")"
	}
	info := &gitInfo{Branch: branch}
	remotes, _ := git(ctx, dir, "config", "--get-regexp", `^remote\..*\.url$`) // exit 1: no remotes
	for line := range strings.Lines(remotes) {
		key, val, ok := strings.Cut(strings.TrimSpace(line), " ")
		name, isURL := strings.CutSuffix(strings.TrimPrefix(key, "remote."), ".url")
		if !ok || !isURL {
			continue
		}
		if info.Remotes == nil {
			info.Remotes = map[string]string{}
		}
		info.Remotes[name] = withoutCredentials(val)
	}
	return info
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "LC_ALL=C")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}

// withoutCredentials drops a user and token from an http(s) remote URL
// ("https://me:ghp_x@host/r.git"): they must not reach the model. ssh users ("git@") stay.
func withoutCredentials(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil || (u.Scheme != "http" && u.Scheme != "https") {
		return raw
	}
	u.User = nil
	return u.String()
}
