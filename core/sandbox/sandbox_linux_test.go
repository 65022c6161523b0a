package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// helperEnv makes the test binary, started inside the sandbox, do one thing and exit
// (TestHelperProcess).
const helperEnv = "CAIRN_SANDBOX_TEST_HELPER"

// TestHelperProcess is not a test: it is what the sandboxed test binary runs.
func TestHelperProcess(t *testing.T) {
	what := os.Getenv(helperEnv)
	if what == "" {
		t.Skip("helper process only")
	}
	verb, arg, _ := strings.Cut(what, ":")
	var err error
	switch verb {
	case "connect":
		var c net.Conn
		if c, err = net.Dial("tcp", arg); err == nil {
			_ = c.Close()
		}
	case "ptrace":
		pid, _ := strconv.Atoi(arg)
		err = syscall.PtraceAttach(pid)
	case "udp":
		var fd int
		if fd, err = syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM, 0); err == nil {
			_ = syscall.Close(fd)
		}
	case "read":
		_, err = os.ReadFile(arg)
	}
	if err != nil {
		fmt.Printf("FAILED: %v\n", err)
		os.Exit(3)
	}
	fmt.Println("DONE")
	os.Exit(0)
}

// fixture is a workspace with every kind of protected path, a fake home with a credential
// store, and a folder outside both.
type fixture struct {
	root, home, outside, temp string
}

func newFixture(t *testing.T) fixture {
	t.Helper()
	if st := Probe(); !st.Available {
		// A Linux CI machine has the sandbox's features: there it is a failure (as
		// sandboxtest.Require, which this package cannot import, says for the others).
		if os.Getenv("CI") != "" {
			t.Fatalf("the command sandbox does not start on this CI machine, which has its features: %s", st.Reason)
		}
		t.Skip("no sandbox here: " + st.Reason)
	}
	base := t.TempDir()
	f := fixture{root: filepath.Join(base, "ws"), home: filepath.Join(base, "home"), outside: filepath.Join(base, "outside"), temp: filepath.Join(base, "tmp")}
	for name, body := range map[string]string{
		"ws/.git/config":            "[core]\n",
		"ws/.git/hooks/pre-commit":  "#!/bin/sh\n",
		"ws/.git/HEAD":              "ref: refs/heads/main\n",
		"ws/.vscode/settings.json":  "{}\n",
		"ws/.clinerules/rule.md":    "be nice\n",
		"ws/AGENTS.md":              "agents\n",
		"ws/.cairnignore":           ".env\n",
		"ws/.env":                   "SECRET=ws-secret\n",
		"ws/main.go":                "package main\n",
		"home/.ssh/id_rsa":          "PRIVATE KEY\n",
		"home/.git-credentials":     "https://u:token@example.com\n",
		"outside/keep.txt":          "keep\n",
		"tmp/.keep":                 "",
		"home/.cache/go-build/keep": "",
	} {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f fixture) policy(tier Tier, network bool) Policy {
	b := Base{Roots: []string{f.root}, Home: f.home, Temp: f.temp, Ignored: []string{filepath.Join(f.root, ".env")}}
	return b.Policy(tier, network, "network off in this test")
}

// run runs argv under p in the fixture's root and returns its output and exit code.
func run(t *testing.T, p Policy, env []string, argv ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = p.Roots[0]
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CAIRN_SANDBOX_TEST_MARK=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, env...)
	if err := Apply(cmd, p); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

func sh(t *testing.T, p Policy, script string) (string, int) {
	t.Helper()
	return run(t, p, nil, "/bin/sh", "-c", script)
}

func helper(t *testing.T, p Policy, what string) (string, int) {
	t.Helper()
	return run(t, p, []string{helperEnv + "=" + what}, os.Args[0], "-test.run=^TestHelperProcess$")
}

// Each tier stops, in the kernel, what the attacks did: writes outside the roots and
// to protected paths (existing ones and new entries of protected folders), reads of masked
// files, connections out, a look at Cairn's processes and ptrace. The policy is handed over
// directly: no classification of the command is involved.
func TestKernelStops(t *testing.T) {
	for _, tier := range []Tier{ReadOnly, Workspace} {
		t.Run(string(tier), func(t *testing.T) {
			f := newFixture(t)
			p := f.policy(tier, false)

			t.Run("write outside the roots", func(t *testing.T) {
				target := filepath.Join(f.outside, "pwned")
				out, code := sh(t, p, "echo x > "+target)
				if code == 0 || exists(target) {
					t.Fatalf("wrote %s (exit %d): %s", target, code, out)
				}
				d := Explain(p, out, f.root)
				if len(d.Paths) != 1 || !strings.Contains(d.Paths[0].Rule, "outside the task's roots") && !strings.Contains(d.Paths[0].Rule, "read-only tier") {
					t.Errorf("explanation = %+v for %q", d, out)
				}
			})
			t.Run("write protected paths", func(t *testing.T) {
				for _, rel := range []string{".git/config", ".git/hooks/pre-commit", ".git/hooks/new-hook", ".vscode/settings.json", ".vscode/tasks.json", ".clinerules/rule.md", "AGENTS.md", ".cairnignore"} {
					target := filepath.Join(f.root, filepath.FromSlash(rel))
					before, _ := os.ReadFile(target)
					out, code := sh(t, p, "echo pwned > "+rel)
					after, _ := os.ReadFile(target)
					if code == 0 || string(after) != string(before) {
						t.Errorf("%s: exit %d, now %q (%s)", rel, code, after, out)
						continue
					}
					d := Explain(p, out, f.root)
					if len(d.Paths) == 0 {
						t.Errorf("%s: no rule named for %q", rel, out)
					} else if tier == Workspace && !strings.Contains(d.Paths[0].Rule, "protected path") {
						t.Errorf("%s: rule %q", rel, d.Paths[0].Rule)
					}
				}
			})
			t.Run("read masked files", func(t *testing.T) {
				out, _ := sh(t, p, "cat "+f.home+"/.ssh/id_rsa "+f.home+"/.git-credentials .env; ls -a "+f.home+"/.ssh")
				for _, secret := range []string{"PRIVATE KEY", "token", "ws-secret"} {
					if strings.Contains(out, secret) {
						t.Errorf("read %q: %s", secret, out)
					}
				}
			})
			t.Run("connect out", func(t *testing.T) {
				ln, err := net.Listen("tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				defer func() { _ = ln.Close() }()
				go func() {
					for {
						c, err := ln.Accept()
						if err != nil {
							return
						}
						_ = c.Close()
					}
				}()
				out, code := helper(t, p, "connect:"+ln.Addr().String())
				if code == 0 {
					t.Fatalf("connected with the network off: %s", out)
				}
				if d := Explain(p, out, f.root); !d.Network && !strings.Contains(out, "permission denied") {
					t.Errorf("no network rule for %q", out)
				}
				if out, code := helper(t, p, "udp:"); code == 0 {
					t.Errorf("opened a UDP socket with the network off: %s", out)
				}
				port := ln.Addr().(*net.TCPAddr).Port
				allowed := p
				allowed.Ports = []int{port}
				if out, code := helper(t, allowed, "connect:"+ln.Addr().String()); code != 0 {
					t.Errorf("the task's own port %d: %s", port, out)
				}
				on := f.policy(tier, true)
				if out, code := helper(t, on, "connect:"+ln.Addr().String()); code != 0 {
					t.Errorf("network on: %s", out)
				}
			})
			t.Run("Cairn's processes", func(t *testing.T) {
				self := strconv.Itoa(os.Getpid())
				out, _ := sh(t, p, "ls /proc | grep -x "+self+"; cat /proc/"+self+"/environ; ps -e -o pid=,comm= 2>/dev/null; echo; head -c 64 /proc/1/environ; head -c 16 /proc/1/mem; echo END")
				if strings.Contains(out, "CAIRN_SANDBOX_TEST_MARK") {
					t.Errorf("read the environment of a Cairn process: %s", out)
				}
				for _, line := range strings.Split(out, "\n") {
					if strings.TrimSpace(line) == self {
						t.Errorf("Cairn's process %s is visible: %s", self, out)
					}
				}
				for _, f := range []string{"/proc/1/environ", "/proc/1/mem"} {
					if !strings.Contains(out, f+"' for reading: Permission denied") {
						t.Errorf("the launcher's %s was readable: %s", f, out)
					}
				}
			})
			t.Run("ptrace", func(t *testing.T) {
				if out, code := helper(t, p, "ptrace:1"); code == 0 || !strings.Contains(out, "operation not permitted") {
					t.Errorf("ptrace of the launcher: exit %d %s", code, out)
				}
			})
			t.Run("what works", func(t *testing.T) {
				out, code := sh(t, p, "cat main.go && echo ok > $TMPDIR/x && cat $TMPDIR/x")
				if code != 0 || !strings.Contains(out, "package main") || !strings.Contains(out, "ok") {
					t.Errorf("exit %d: %s", code, out)
				}
				out, code = sh(t, p, "echo new > new.txt")
				if tier == Workspace && (code != 0 || !exists(filepath.Join(f.root, "new.txt"))) {
					t.Errorf("workspace tier could not write in its root: %s", out)
				}
				if tier == ReadOnly && (code == 0 || exists(filepath.Join(f.root, "new.txt"))) {
					t.Errorf("read-only tier wrote in the root: %s", out)
				}
			})
		})
	}
}

func init() {
	// A mark only the test process holds: a sandboxed command must never read it.
	_ = os.Setenv("CAIRN_SANDBOX_TEST_MARK", "1")
}

// The exit report comes as soon as the command ends, while what it left runs on.
func TestReportExit(t *testing.T) {
	f := newFixture(t)
	cmd := exec.Command("/bin/sh", "-c", "sleep 30 >/dev/null 2>&1 & exit 7")
	cmd.Dir = f.root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := Apply(cmd, f.policy(Workspace, false)); err != nil {
		t.Fatal(err)
	}
	rep, err := ReportExit(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	rep.Started()
	code, ok := rep.Wait()
	if !ok || code != 7 {
		t.Fatalf("reported %d, %v; want 7", code, ok)
	}
	if err := cmd.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the launcher left before its leftover process: %v", err)
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait() // killed, as asked
}
