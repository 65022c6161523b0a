package tools

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/protect"
	"github.com/cairnhq/cairn/core/shellcmd"
)

// ProtectedReason says why a write to path needs the user's approval whatever the
// auto-approval policy (see core/protect), or "" for an ordinary file. path is what the model
// or a command named (absolute, or relative to the primary root); both that path and the one
// it resolves to through symlinks are checked, so a link into .git/ is as protected as .git/.
// A git directory by another name (see gitDirReason) is protected like .git/.
func ProtectedReason(files Files, path string) string {
	if files == nil {
		return ""
	}
	lexical := path
	if !filepath.IsAbs(lexical) {
		lexical = filepath.Join(files.Root(), filepath.FromSlash(lexical))
	}
	if why := relReason(files, filepath.Clean(lexical)); why != "" {
		return why
	}
	resolved, _, err := files.Resolve(path)
	if err != nil {
		return ""
	}
	return relReason(files, resolved)
}

// ProtectedInside says why removing or changing the whole folder abs needs approval: it holds a
// protected entry directly (rm -r sub removes sub/.git).
func ProtectedInside(_ Files, abs string) string {
	return protect.Holds(filepath.ToSlash(abs), func(p string) bool {
		_, err := os.Lstat(filepath.FromSlash(p))
		return err == nil
	})
}

// relReason matches the workspace-relative form of abs; a path outside every root is left
// to the outside-the-workspace approval.
func relReason(files Files, abs string) string {
	rel := files.Rel(abs)
	if filepath.IsAbs(rel) {
		return linkedGitDirReason(files, abs)
	}
	if why := protect.Reason(filepath.ToSlash(rel)); why != "" {
		return why
	}
	// A non-primary root shows as "name:path".
	if _, rest, ok := strings.Cut(rel, ":"); ok {
		if why := protect.Reason(filepath.ToSlash(rest)); why != "" {
			return why
		}
	}
	return gitDirReason(files, abs)
}

// ProtectedCommand says why command needs the user's approval whatever the policy, when one of
// the files it writes (see shellcmd.Script.Targets) is protected: "<path>: <reason>"; when a
// link it makes leads to a protected path, that path and its reason; and when it writes a file
// that is only known when it runs (shellcmd.Script.UnknownWrites: `> $d/hooks/p`, a write after
// a cd that cannot be followed, `xargs cp a.txt`, a write through a link the line makes), that
// reason: such a file may be a protected one, so it is asked about like one. A line that does
// not parse is always asked anyway. Best effort, like the ignore check of commands.
func ProtectedCommand(files Files, command string) string {
	if files == nil {
		return ""
	}
	script, err := shellcmd.Parse(command)
	if err != nil {
		return ""
	}
	abs, why := script.FirstTarget(files.Root(), func(abs string) string {
		return ProtectedReason(files, abs)
	}, func(abs string) string {
		return ProtectedInside(files, abs)
	})
	if why != "" {
		return files.Rel(abs) + ": " + why
	}
	if unknown := script.UnknownWrites(); len(unknown) > 0 {
		return unknown[0]
	}
	return ""
}

// OutsideWriteCommand returns the first file command writes outside every workspace root, or
// "" when every file it names is inside: redirections, tee, the destinations of cp, mv,
// install and ln, touch, mkdir, rm, sed -i and the other writers shellcmd knows (see
// shellcmd.Script.WritePaths), with ~ expanded to the home folder and symlinks resolved as far
// as they exist. Such a write is asked about unless the user lets the agent edit files outside
// the workspace (README, Security: protected files). A line that does not parse is asked
// anyway; files a command writes its own way are not seen.
func OutsideWriteCommand(files Files, command string) string {
	if files == nil {
		return ""
	}
	script, err := shellcmd.Parse(command)
	if err != nil {
		return ""
	}
	for _, p := range script.WritePaths(files.Root()) {
		if !filepath.IsAbs(p) {
			return p // ~name/…: another user's home
		}
		if _, inside, err := files.Resolve(p); err != nil || !inside {
			return p
		}
	}
	return ""
}
