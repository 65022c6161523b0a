package cli_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/sandbox"
	"github.com/cairnhq/cairn/server/cli"
)

// TestDoctor: `cairn doctor` says what the sandbox probe found on this machine (available and
// by what, or why not and that every command then asks), what the settings do with it, and
// exits 0 either way; only a usage error fails it.
func TestDoctor(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	data := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfg, "cairn"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "cairn", "config.json"),
		[]byte(`{"sandboxNetwork": true, "sandboxMaskedPaths": ["~/.secrets"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "settings.json"), []byte(`{"sandboxDisabled": true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := cli.Run(context.Background(), []string{"doctor", "--data-dir", data}, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb})
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	got := out.String()
	t.Logf("cairn doctor on this machine:\n%s", got)
	st := sandbox.Probe()
	want := []string{"cairn ", runtime.GOOS + "/" + runtime.GOARCH, "sandboxNetwork true, sandboxMaskedPaths ~/.secrets",
		"sandboxDisabled true", "there the sandbox is off: commands run without the kernel's protection", "~/.ssh", "git: ", "helper: "}
	if st.Available {
		want = append(want, "sandbox: available: "+st.Mechanism, "there commands run in the sandbox, auto-approved ones with the network")
	} else {
		want = append(want, "sandbox: unavailable: "+st.Reason, "every command asks before it runs", "there every command asks")
	}
	if runtime.GOOS == "linux" {
		want = append(want, "landlock: ", "user namespaces: user.max_user_namespaces")
	}
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("doctor's output lacks %q", w)
		}
	}

	for _, args := range [][]string{{"doctor", "extra"}, {"doctor", "--bogus"}} {
		if code := cli.Run(context.Background(), args, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestDoctorWithoutUserNamespaces: in a user namespace whose max_user_namespaces is 0 the
// sandbox cannot be set up, and `cairn doctor` (the built binary) says why and that every
// command asks, and still exits 0 (README "Security": fail closed).
func TestDoctorWithoutUserNamespaces(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("user namespaces are Linux's")
	}
	if testing.Short() {
		t.Skip("builds the cairn binary")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("util-linux unshare is not installed: ", err)
	}
	if out, err := exec.Command(unshare, "--user", "--map-root-user", "true").CombinedOutput(); err != nil {
		t.Skipf("this machine gives no user namespace to start from (%v: %s); TestDoctor shows the unavailable path", err, out)
	}
	bin := filepath.Join(t.TempDir(), "cairn")
	build := exec.Command("go", "build", "-o", bin, "github.com/cairnhq/cairn/server/cmd/cairn")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(unshare, "--user", "--map-root-user", "sh", "-c",
		`echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" doctor --data-dir "$1"`, bin, t.TempDir())
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("cairn doctor without user namespaces: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	got := out.String()
	t.Logf("cairn doctor without user namespaces:\n%s", got)
	for _, w := range []string{
		"sandbox: unavailable: unprivileged user namespaces are not available",
		"every command asks before it runs",
		"user.max_user_namespaces = 0",
		"there every command asks (no sandbox here)",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("doctor's output lacks %q", w)
		}
	}
}
