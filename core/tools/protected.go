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
		return ""
	}
	if why := protect.Reason(filepath.ToSlash(rel)); why != "" {
		return why
	}
	// A non-primary root shows as "name:path".
	if _, rest, ok := strings.Cut(rel, ":"); ok {
		return protect.Reason(filepath.ToSlash(rest))
	}
	return ""
}

// ProtectedCommand says why command needs the user's approval whatever the policy, when one of
// the files it writes (see shellcmd.Script.Targets) is protected: "<path>: <reason>". A line
// that does not parse is always asked anyway. Best effort, like the ignore check of commands.
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
	if why == "" {
		return ""
	}
	return files.Rel(abs) + ": " + why
}
