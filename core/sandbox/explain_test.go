package sandbox

import (
	"runtime"
	"strings"
	"testing"
)

func TestExplain(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no command sandbox on Windows (docs/sandbox.md): nothing to explain, and the paths here are POSIX")
	}
	p := Policy{Tier: Workspace, Roots: []string{"/ws"}, Protected: []string{"/ws/.git/hooks"}, Masked: []string{"/home/u/.ssh"},
		Temp: "/tmp/t", NetworkRule: "the network is off for auto-approved commands"}
	cases := []struct {
		name, out string
		paths     []string
		network   bool
	}{
		{"shell redirect outside", "/bin/sh: 1: cannot create /etc/passwd: Permission denied", []string{"/etc/passwd"}, false},
		{"touch protected", "touch: cannot touch '.git/hooks/pre-commit': Read-only file system", []string{"/ws/.git/hooks/pre-commit"}, false},
		{"inside the root is not the sandbox", "cp: cannot open 'src/a.go' for reading: Permission denied", nil, false},
		{"temp is writable", "tee: /tmp/t/x: Permission denied", nil, false},
		{"dns", "curl: (6) Could not resolve host: example.com", nil, true},
		{"landlock connect", "dial tcp 10.0.0.1:443: connect: permission denied", nil, true},
		{"python traceback", "  File \"/usr/lib/python3.11/socket.py\", line 836, in create_connection\n    sock.connect(sa)\nPermissionError: [Errno 13] Permission denied", nil, true},
		{"a server that is not there", "curl: (7) Failed to connect to localhost port 5432: Connection refused", nil, false},
		{"no denial at all", "FAIL: TestX (0.01s)\n    x_test.go:9: got 2, want 3", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Explain(p, c.out, "/ws")
			var got []string
			for _, pd := range d.Paths {
				got = append(got, pd.Path)
			}
			if strings.Join(got, ",") != strings.Join(c.paths, ",") || d.Network != c.network {
				t.Errorf("Explain = %+v; want paths %v network %v", d, c.paths, c.network)
			}
		})
	}
	d := Explain(p, "touch: cannot touch '/etc/x': Permission denied\ncurl: (6) Could not resolve host: x", "/ws")
	w := d.Widen(p)
	if !w.Network || w.Covers("/etc/x") != "" || w.Covers("/ws/.git/hooks/y") == "" {
		t.Errorf("Widen = %+v", w)
	}
	if txt := d.Text(p); !strings.Contains(txt, "/etc/x: it is outside the task's roots") || !strings.Contains(txt, "network is off for auto-approved") {
		t.Errorf("Text = %q", txt)
	}
}

func TestProfile(t *testing.T) {
	p := Policy{Tier: Workspace, Roots: []string{"/Users/a/app"}, Protected: []string{"/Users/a/app/.git/hooks"},
		Masked: []string{`/Users/a/.ssh`}, Temp: "/tmp/c", Ports: []int{5173}}
	got := Profile(p)
	for _, want := range []string{
		"(deny default)", "(allow file-read*)",
		"(allow file-write*\n  (subpath \"/tmp/c\")\n  (subpath \"/dev\")\n  (subpath \"/Users/a/app\"))",
		"(deny file-write*\n  (subpath \"/Users/a/app/.git/hooks\"))",
		"(deny file-read* file-write*\n  (subpath \"/Users/a/.ssh\"))",
		`(allow network-outbound (remote ip "localhost:5173"))`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("profile lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "(allow network*)") {
		t.Error("network allowed with the network off")
	}
	ro := Profile(Policy{Tier: ReadOnly, Roots: []string{"/Users/a/app"}, Temp: "/tmp/c", Network: true})
	if strings.Contains(ro, `"/Users/a/app"`) || !strings.Contains(ro, "(allow network*)") {
		t.Errorf("read-only profile:\n%s", ro)
	}
	if q := sbplString(`a"b\c`); q != `"a\"b\\c"` {
		t.Errorf("quoted %s", q)
	}
}
