package task

import (
	"path/filepath"
	"strings"

	"github.com/cairnhq/cairn/core/tools"
)

// The scratch folder. Tools keep files there that the model may read back later, such as the
// whole output of a command whose output was cut for the chat. It lives in the task's folder of
// the store (so it survives a restart and goes away with the task), outside the workspace; the
// task's tools see it through scratchFiles, which counts it as part of the workspace so that
// read_file reads it like any workspace file.

// scratchName is the folder under the task's folder.
const scratchName = "output"

// scratchDir returns the task's scratch folder, or "" when the task is not stored.
func (t *Task) scratchDir() string {
	t.mu.Lock()
	log := t.log
	t.mu.Unlock()
	if log == nil || log.Dir() == "" {
		return ""
	}
	// The model is given absolute paths, and paths the workspace resolves come back with
	// symlinks evaluated; so must the folder be.
	base, err := filepath.Abs(log.Dir())
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(base); err == nil {
		base = real
	}
	return filepath.Join(base, scratchName)
}

// scratchFiles is the workspace plus the task's scratch folder.
type scratchFiles struct {
	tools.Files
	dir string
}

// withScratch returns files extended by dir ("" returns files as they are).
func withScratch(files tools.Files, dir string) tools.Files {
	if files == nil || dir == "" {
		return files
	}
	return scratchFiles{Files: files, dir: dir}
}

func (s scratchFiles) holds(abs string) bool {
	return abs == s.dir || strings.HasPrefix(abs, s.dir+string(filepath.Separator))
}

// Resolve implements tools.Files: a path in the scratch folder counts as inside.
func (s scratchFiles) Resolve(path string) (string, bool, error) {
	abs, inside, err := s.Files.Resolve(path)
	if err == nil && !inside && s.holds(abs) {
		inside = true
	}
	return abs, inside, err
}

// Ignored implements tools.Files: the user's ignore file does not reach the scratch folder.
func (s scratchFiles) Ignored(abs string) bool {
	if s.holds(filepath.Clean(abs)) {
		return false
	}
	return s.Files.Ignored(abs)
}
