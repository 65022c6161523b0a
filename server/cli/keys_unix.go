//go:build unix

package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"syscall"
)

// shedKeys replaces this process image (same PID, same open files and terminal, so exit codes,
// prompts and signals are the ones the user started) with a fresh one of the same binary whose
// arguments and environment hold no key, when this one's do: a command Cairn runs can read its
// parent's /proc/PID/environ and /proc/PID/cmdline (README, Security). The keys travel over a
// pipe whose read end the new image inherits, named by keyFDEnv; the write end is closed
// before the exec. It returns only when there was nothing to shed, or on an error.
func shedKeys(args []string) error {
	p := planKeys(args, os.Environ())
	if !p.changed {
		return nil
	}
	exe := "/proc/self/exe"
	if runtime.GOOS != "linux" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return fmt.Errorf("finding the cairn binary to restart without the keys: %w", err)
		}
	}
	env := p.env
	fd := -1
	if p.keys.Flag != "" || len(p.keys.Env) > 0 {
		var err error
		if fd, err = keyPipe(p.keys); err != nil {
			return err
		}
		env = append(env, keyFDEnv+"="+strconv.Itoa(fd))
	}
	argv := append([]string{os.Args[0]}, p.args...)
	err := syscall.Exec(exe, argv, env)
	if errors.Is(err, syscall.ENOEXEC) {
		// The binary cannot start itself: it runs under a user-mode emulator (qemu-user
		// without binfmt_misc), which does not emulate exec. The process is unchanged, so it
		// goes on as it is, with the keys where the user put them, and says so.
		if fd >= 0 {
			if cerr := syscall.Close(fd); cerr != nil {
				slog.Warn("closing the unused key pipe", "err", cerr)
			}
		}
		fmt.Fprintf(os.Stderr, "cairn: warning: could not restart without the keys (%v); commands this run starts can read them from this process\n", err)
		return nil
	}
	return fmt.Errorf("restarting cairn without the keys: %w", err)
}

// keyPipe writes keys to a new pipe, closes its write end, and returns its read end, left
// open across exec. The payload is far smaller than any pipe's buffer, so the write does not
// wait for a reader.
func keyPipe(keys handedKeys) (int, error) {
	b, err := json.Marshal(keys)
	if err != nil {
		return 0, fmt.Errorf("handing the keys over: %w", err)
	}
	if len(b) > 4096 {
		return 0, fmt.Errorf("handing the keys over: %d bytes of keys is more than a pipe is sure to hold", len(b))
	}
	var fds [2]int
	syscall.ForkLock.RLock()
	err = syscall.Pipe(fds[:])
	if err == nil {
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return 0, fmt.Errorf("handing the keys over: %w", err)
	}
	for len(b) > 0 && err == nil {
		var n int
		n, err = syscall.Write(fds[1], b)
		if n > 0 {
			b = b[n:]
		}
	}
	if cerr := syscall.Close(fds[1]); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("handing the keys over: %w", err)
	}
	return fds[0], nil
}
