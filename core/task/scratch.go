package task

import "path/filepath"

// The scratch folder. Tools keep files there that the model may read back later, such as the
// whole output of a command whose output was cut for the chat. It lives in the task's folder of
// the store (so it survives a restart and goes away with the task), outside the workspace;
// tools learn it from tools.Env.Scratch, and read_file reads it like a workspace file.

// scratchName is the folder under the task's folder.
const scratchName = "output"

// scratchDir returns the scratch folder of the task whose folder is dir, or "" when the task
// is not stored (dir "").
func scratchDir(dir string) string {
	if dir == "" {
		return ""
	}
	// The model is given absolute paths, and paths the workspace resolves come back with
	// symlinks evaluated; so must the folder be.
	base, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	if resolved, err := filepath.EvalSymlinks(base); err == nil {
		base = resolved
	}
	return filepath.Join(base, scratchName)
}
