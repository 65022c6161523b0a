// Package hooks finds, trusts and runs the user's hook scripts: executable files named after a
// point in a task's life (TaskStart, PreToolUse, …) in a workspace's .clinerules/hooks/ or
// .cairnrules/hooks/ folder, or in the global hooks folder. The files and their JSON on stdin
// and stdout follow Cline's hooks, so a hook written for Cline works unchanged.
//
// Hooks are repository code, so nothing runs until the user enabled hooks for the workspace
// (or for the global folder) and trusted each file's exact content. The trusted content is
// recorded in the daemon's data dir; a file whose bytes differ from what was trusted, checked
// right before every run, is skipped. The agent can therefore never make Cairn execute a file
// it has just written.
//
// What runs is the bytes that were checked, not the file's path: the file is read once, those
// bytes are hashed and compared with the trust record, and a private copy of them is executed
// (copy.go), so a file swapped after the check never runs. The copy has the hook's file name
// in a fresh directory of its own and is removed after the run; the working directory is the
// same as ever, and CAIRN_HOOK_PATH holds the hook file's real path for a hook that looks for
// files next to itself ($0 names the copy).
package hooks

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// Kind is a hook type; a hook's file is named after it.
type Kind string

// The hook types, named as Cline names them.
const (
	TaskStart        Kind = "TaskStart"
	TaskResume       Kind = "TaskResume"
	TaskCancel       Kind = "TaskCancel"
	TaskComplete     Kind = "TaskComplete"
	PreToolUse       Kind = "PreToolUse"
	PostToolUse      Kind = "PostToolUse"
	UserPromptSubmit Kind = "UserPromptSubmit"
	PreCompact       Kind = "PreCompact"
)

// Kinds lists every hook type.
var Kinds = []Kind{TaskStart, TaskResume, TaskCancel, TaskComplete, PreToolUse, PostToolUse, UserPromptSubmit, PreCompact}

// field is the name of the event's object in the input JSON ("preToolUse" for PreToolUse).
func (k Kind) field() string {
	if k == "" {
		return ""
	}
	return strings.ToLower(string(k[:1])) + string(k[1:])
}

// WorkspaceDirs are the folders of a workspace root that hold hooks, in the order they run,
// slash-separated.
var WorkspaceDirs = []string{".clinerules/hooks", ".cairnrules/hooks"}

// GlobalScope is the scope of the hooks in the global folder.
const GlobalScope = "global"

// Hook is one hook file.
type Hook struct {
	Kind Kind
	// Path is the file's absolute path.
	Path string
	// Scope is the workspace root the hook belongs to, or GlobalScope.
	Scope string
	// Name is what the user sees: the path relative to its root, or "global/<Kind>".
	Name string
	// Executable is false for a file that cannot be run (no execute bit; on Windows, no
	// extension Windows runs): it is listed but never run.
	Executable bool
}

// Discover lists the hooks of the workspace roots and the global folder ("" for none):
// global hooks first, then each root's in WorkspaceDirs order. Missing folders are not an
// error.
func Discover(roots []string, globalDir string) ([]Hook, error) {
	var out []Hook
	var errs []error
	if globalDir != "" {
		hs, err := scan(globalDir, GlobalScope, func(file string) string { return "global/" + file })
		out, errs = append(out, hs...), append(errs, err)
	}
	for _, root := range roots {
		root = filepath.Clean(root)
		for _, d := range WorkspaceDirs {
			rel := filepath.FromSlash(d)
			hs, err := scan(filepath.Join(root, rel), root, func(file string) string { return filepath.ToSlash(filepath.Join(rel, file)) })
			out, errs = append(out, hs...), append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

// scan lists the hook files in one folder: for each kind, the first of its file names that
// exists (fileNames).
func scan(dir, scope string, name func(file string) string) ([]Hook, error) {
	var out []Hook
	for _, k := range Kinds {
		for _, file := range fileNames(k) {
			p := filepath.Join(dir, file)
			fi, err := os.Stat(p)
			switch {
			case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission), isNotDir(err):
				continue
			case err != nil:
				return out, fmt.Errorf("hooks: %w", err)
			case !fi.Mode().IsRegular():
				continue
			}
			out = append(out, Hook{Kind: k, Path: p, Scope: scope, Name: name(file), Executable: executable(file, fi.Mode())})
			break
		}
	}
	return out, nil
}

// isNotDir reports an error from a path whose parent is a file.
func isNotDir(err error) bool { return errors.Is(err, syscall.ENOTDIR) }

// Scopes returns the scopes of hooks, sorted, each once.
func Scopes(hs []Hook) []string {
	seen := map[string]bool{}
	var out []string
	for _, h := range hs {
		if !seen[h.Scope] {
			seen[h.Scope] = true
			out = append(out, h.Scope)
		}
	}
	sort.Strings(out)
	return out
}
