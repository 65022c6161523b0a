//go:build unix

package direct

import (
	"syscall"
	"testing"
)

// Exit codes are exact: many short commands in a row, each checked, over a PTY and over pipes.
// A PTY closed before the shell was reaped used to turn some of them into 129 (SIGHUP).
func TestManyShortCommandsExitExactly(t *testing.T) {
	cases := []struct {
		command string
		code    int
	}{
		{"touch m1", 0},
		{"true", 0},
		{"false", 1},
		{"exit 2", 2},
		{"exit 42", 42},
		{"echo x; exit 42", 42},
		{"kill -KILL $$", 128 + int(syscall.SIGKILL)},
		{"kill -INT $$", 128 + int(syscall.SIGINT)},
	}
	const rounds = 60
	for _, m := range modes {
		for _, sh := range []string{"/bin/sh", "/bin/bash"} {
			t.Run(m.name+sh, func(t *testing.T) {
				term := newTestTerminal(m.noPTY)
				term.Shell = sh
				dir := t.TempDir()
				wrong := 0
				for i := range rounds * len(cases) {
					c := cases[i%len(cases)]
					if _, code := runAll(t, term, dir, c.command); code != c.code {
						wrong++
						t.Errorf("run %d: %q exited %d, want %d", i, c.command, code, c.code)
					}
				}
				t.Logf("%d commands, %d wrong exit codes", rounds*len(cases), wrong)
			})
		}
	}
}
