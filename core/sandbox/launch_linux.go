package sandbox

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// The launcher's first argument. Outer is the form a terminal line uses: it makes the
// namespaces by starting itself again as Inner. Inner runs in them (Cairn's own runner starts
// it directly with the namespaces).
const (
	argOuter = "__cairn-sandbox"
	argInner = "__cairn-sandbox-ns"
	// envPolicy carries the policy as JSON to the inner launcher; envExitFD names the
	// descriptor on which it reports the command's exit code (ReportExit). Both are removed
	// before the command starts.
	envPolicy = "CAIRN_SANDBOX_POLICY"
	envExitFD = "CAIRN_SANDBOX_EXIT_FD"
)

func init() {
	if len(os.Args) > 1 && (os.Args[1] == argOuter || os.Args[1] == argInner) {
		os.Exit(launch(os.Args[1], os.Args[2:]))
	}
}

// launch runs the launcher and returns its exit code: the command's, 128+signal when a signal
// ended it, 125 when the sandbox could not be set up (the reason on stderr).
func launch(stage string, args []string) int {
	p, argv, err := launchArgs(stage, args)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cairn sandbox: %v\n", err)
		return 125
	}
	if stage == argOuter {
		return outer(p, argv)
	}
	code, err := inner(p, argv)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cairn sandbox: %v\n", err)
		return 125
	}
	return code
}

// launchArgs reads `[--policy FILE] -- ARGV…`, the policy coming from FILE or the environment.
func launchArgs(stage string, args []string) (*Policy, []string, error) {
	var file string
	for len(args) > 0 && args[0] != "--" {
		if args[0] == "--policy" && len(args) > 1 {
			file, args = args[1], args[2:]
			continue
		}
		return nil, nil, fmt.Errorf("usage: cairn %s [--policy FILE] -- COMMAND [ARG…]", stage)
	}
	if len(args) < 2 {
		return nil, nil, errors.New("no command to run")
	}
	var data []byte
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, nil, fmt.Errorf("read policy: %w", err)
		}
		data = b
	} else {
		data = []byte(os.Getenv(envPolicy))
	}
	var p Policy
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, nil, fmt.Errorf("policy: %w", err)
	}
	if p.Tier != ReadOnly && p.Tier != Workspace {
		return nil, nil, fmt.Errorf("policy: unknown tier %q", p.Tier)
	}
	return &p, args[1:], nil
}

// outer starts the inner launcher in new namespaces with the same standard files, passes
// signals on and returns its exit code.
func outer(p *Policy, argv []string) int {
	data, err := json.Marshal(p)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cairn sandbox: %v\n", err)
		return 125
	}
	cmd := exec.Command("/proc/self/exe", append([]string{argInner, "--"}, argv...)...)
	cmd.Args[0] = "cairn"
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), envPolicy+"="+string(data))
	cmd.SysProcAttr = nsAttr(nil)
	// Processes the command leaves behind (`server &`) run on in the inner launcher's
	// namespace after this one returned the command's code, as they would in the terminal's
	// own shell: the inner launcher must not die with this process.
	cmd.SysProcAttr.Pdeathsig = 0
	rep, err := ReportExit(cmd)
	if err != nil {
		fmt.Fprintf(os.Stderr, "cairn sandbox: %v\n", err)
		return 125
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	if err := cmd.Start(); err != nil {
		rep.Close()
		fmt.Fprintf(os.Stderr, "cairn sandbox: %v\n", err)
		return 125
	}
	rep.Started()
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s) // it may have ended meanwhile
		}
	}()
	if code, ok := rep.Wait(); ok {
		return code
	}
	_ = cmd.Wait() // the status is read below
	return exitCode(cmd.ProcessState)
}

// ExitReport is the pipe on which the launcher reports the command's exit code as soon as the
// command ends, while it stays to keep what the command left running (`server &`) alive
// until that ends too, as a shell would. Without it the launcher ends those processes when
// the command ends, and says so in the output.
type ExitReport struct {
	r, w *os.File
	once sync.Once
	code int
	ok   bool
}

// ReportExit adds the pipe to cmd (after Apply, before Start). Call Started after a
// successful Start, or Close when Start failed.
func ReportExit(cmd *exec.Cmd) (*ExitReport, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: exit pipe: %w", err)
	}
	cmd.ExtraFiles = append(cmd.ExtraFiles, w)
	cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d", envExitFD, 2+len(cmd.ExtraFiles)))
	return &ExitReport{r: r, w: w}, nil
}

// Started closes this process's copy of the pipe's write end.
func (e *ExitReport) Started() { _ = e.w.Close() }

// Close releases both ends when the command never started.
func (e *ExitReport) Close() { _, _ = e.w.Close(), e.r.Close() }

// Wait blocks until the launcher reported the command's exit code, or ended without doing so
// (ok false: the launcher itself was killed or could not set up; its own exit status then
// tells).
func (e *ExitReport) Wait() (code int, ok bool) {
	e.once.Do(func() {
		defer func() { _ = e.r.Close() }()
		line, err := bufio.NewReader(io.LimitReader(e.r, 32)).ReadString('\n')
		if err != nil && line == "" {
			return
		}
		if n, err := strconv.Atoi(strings.TrimSpace(line)); err == nil {
			e.code, e.ok = n, true
		}
	})
	return e.code, e.ok
}

// nsAttr adds the launcher's namespaces to attr: user (the caller's uid and gid as root
// inside, so the launcher may mount), mount and pid. The launcher dies with its parent.
func nsAttr(attr *syscall.SysProcAttr) *syscall.SysProcAttr {
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
	attr.GidMappingsEnableSetgroups = false
	attr.Pdeathsig = syscall.SIGKILL
	return attr
}

func exitCode(st *os.ProcessState) int {
	if st == nil {
		return 125
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return st.ExitCode()
}

// inner is process 1 of the sandbox's pid namespace: it lays out the mounts, restricts its
// own thread with Landlock and seccomp, starts the command from that thread (the child
// inherits the restrictions), reaps every process of the namespace and returns the command's
// exit code. When it returns, the kernel ends whatever the command left running; the command's
// output then says so.
func inner(p *Policy, argv []string) (int, error) {
	// Signals are caught from the start: process 1 of a namespace that the runtime's own
	// handler let die would end with the runtime's exit code, not the signal's. Until the
	// command runs, a signal ends the launcher with 128+signal, as a shell reports it.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	runtime.LockOSThread() // the restrictions below are this thread's; the child is forked from it
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return 0, fmt.Errorf("not dumpable: %w", err)
	}
	if err := layout(p); err != nil {
		return 0, err
	}
	if err := restrictThread(p); err != nil {
		return 0, err
	}
	env := childEnv(os.Environ(), p)
	// The command's PATH is the launcher's own (childEnv keeps it). A match in a relative
	// PATH entry runs, as a shell would run it.
	path, err := exec.LookPath(argv[0])
	if errors.Is(err, exec.ErrDot) {
		err = nil
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: command not found\n", argv[0])
		return 127, nil //nolint:nilerr // reported like a shell does
	}
	exit := exitFile()  // before the command starts, so it does not inherit the descriptor
	wd, _ := os.Getwd() // "" keeps the current folder
	select {
	case s := <-sigs:
		return 128 + int(s.(syscall.Signal)), nil
	default:
	}
	proc, err := os.StartProcess(path, argv, &os.ProcAttr{
		Dir: wd, Env: env, Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys: childAttr(p),
	})
	if err != nil {
		return 0, fmt.Errorf("start %s: %w", argv[0], err)
	}
	// From now on signals go on to every process of the namespace.
	go func() {
		for s := range sigs {
			_ = unix.Kill(-1, s.(syscall.Signal)) // every process of the namespace but this one
		}
	}()
	return reap(proc.Pid, exit), nil
}

// exitFile returns the descriptor the caller gave to report the command's exit on, or nil.
func exitFile() *os.File {
	v := os.Getenv(envExitFD)
	if v == "" {
		return nil
	}
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return nil
	}
	unix.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "exit")
}

// childAttr gives the command back the caller's own uid and gid when they are not root, in a
// user namespace of its own: `id`, git's ownership check and tools that refuse root see the
// user they expect, and the command holds no capability over the launcher's namespaces.
func childAttr(p *Policy) *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{}
	uid, gid := p.HostUID, p.HostGID
	if uid != 0 || gid != 0 {
		attr.Cloneflags = syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: 0, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: 0, Size: 1}}
	}
	return attr
}

// reap waits for every child until the command (pid) has ended and returns its exit code.
// With exit (ReportExit) it reports the code there at once and goes on reaping until the
// namespace is empty; without, what the command left running is ended with the launcher, and
// the output says so.
func reap(pid int, exit *os.File) int {
	code := -1
	for {
		var ws unix.WaitStatus
		got, err := unix.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			break // ECHILD: the namespace is empty
		}
		if got != pid {
			continue
		}
		if ws.Signaled() {
			code = 128 + int(ws.Signal())
		} else {
			code = ws.ExitStatus()
		}
		if exit == nil {
			break
		}
		_, _ = fmt.Fprintf(exit, "%d\n", code) // the caller reads it; it may have gone
		_ = exit.Close()
	}
	if n := leftRunning(); n > 0 {
		fmt.Fprintf(os.Stderr, "\n[cairn sandbox: the command ended; %d process(es) it left running were stopped]\n", n)
	}
	return code
}

// leftRunning counts the processes of the namespace other than the launcher.
func leftRunning() int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid != 1 {
			if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && !zombie(st) {
				n++
			}
		}
	}
	return n
}

func zombie(stat []byte) bool {
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// childEnv is the command's environment: the launcher's own less the policy, TMPDIR the
// private temp folder.
func childEnv(env []string, p *Policy) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case envPolicy, envExitFD, "TMPDIR", "TMP", "TEMP", "SSH_AUTH_SOCK", "GPG_AGENT_INFO":
			continue
		}
		out = append(out, kv)
	}
	if p.Temp != "" {
		out = append(out, "TMPDIR="+p.Temp)
	}
	return out
}

// layout makes the launcher's mount namespace private and lays the policy's mounts over the
// user's tree, none of which reach outside the namespace: read-only binds over the protected
// paths, empty read-only files and folders over the masked ones, a private /dev/shm, and a
// /proc of the new pid namespace.
func layout(p *Policy) error {
	if err := unix.Mount("none", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("private mounts: %w", err)
	}
	for _, path := range p.Protected {
		if err := bindReadOnly(path, path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("protect %s: %w", path, err)
		}
	}
	for _, path := range p.Masked {
		if err := mask(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("mask %s: %w", path, err)
		}
	}
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777,size=256m"); err != nil {
			return fmt.Errorf("private /dev/shm: %w", err)
		}
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("private process table (/proc): %w", err)
	}
	return nil
}

// bindReadOnly binds src over dst and makes that mount read-only, keeping the flags the
// kernel locks on mounts inherited from outside the user namespace.
func bindReadOnly(src, dst string) error {
	if _, err := os.Lstat(dst); err != nil {
		return err
	}
	if err := unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return err
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY)
	for _, f := range [][2]uintptr{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if uintptr(st.Flags)&f[0] != 0 {
			flags |= f[1]
		}
	}
	return unix.Mount("none", dst, "", flags, "")
}

// mask makes path read as empty: a read-only empty folder over a folder, /dev/null read-only
// over a file.
func mask(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return unix.Mount("tmpfs", path, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555")
	}
	if st.Mode()&os.ModeSymlink != 0 {
		// A link is masked at what it names, when that exists; the name itself stays.
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return nil //nolint:nilerr // a dangling link reads as absent already
		}
		return mask(target)
	}
	return bindReadOnly("/dev/null", path)
}
