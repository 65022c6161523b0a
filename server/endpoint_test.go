package server

import "testing"

// The Windows endpoint's naming and ACL text are plain string functions, so their cases run on
// every platform; the code that applies them is behind the windows build tag.

func TestPipeName(t *testing.T) {
	same := []struct {
		name string
		a, b string
	}{
		{"case", `C:\Users\Ann\AppData\Roaming\Code\User\globalStorage\cairnhq.cairn`, `c:\users\ann\appdata\roaming\code\user\globalstorage\CAIRNHQ.CAIRN`},
		{"slashes", `C:\Users\Ann\data`, `C:/Users/Ann/data`},
		{"trailing separator", `C:\Users\Ann\data`, `C:\Users\Ann\data\\`},
	}
	for _, tc := range same {
		t.Run(tc.name, func(t *testing.T) {
			if PipeName(tc.a) != PipeName(tc.b) {
				t.Errorf("PipeName(%q) = %q, PipeName(%q) = %q; want equal", tc.a, PipeName(tc.a), tc.b, PipeName(tc.b))
			}
		})
	}
	if a, b := PipeName(`C:\Users\Ann\data`), PipeName(`C:\Users\Bob\data`); a == b {
		t.Errorf("two users' data dirs share the pipe %q", a)
	}
	if got := PipeName(`C:\x`); !IsPipePath(got) || len(got) != len(`\\.\pipe\cairn-`)+16 {
		t.Errorf("PipeName = %q, want \\\\.\\pipe\\cairn- and 16 hex digits", got)
	}
	if a, b := PipeName(`C:\`), PipeName(`C:`); a == b {
		t.Errorf("a drive root and a drive-relative path share %q", a)
	}
}

func TestPipeAddress(t *testing.T) {
	cases := []struct {
		address string
		want    string
		ok      bool
	}{
		{`pipe://\\.\pipe\cairn-0123`, `\\.\pipe\cairn-0123`, true},
		{`pipe:////./pipe/cairn-0123`, `//./pipe/cairn-0123`, true},
		{`pipe://\\.\PIPE\x`, `\\.\PIPE\x`, true},
		{`pipe://\\.\pipe\`, "", false},
		{`pipe://C:\Users\x.sock`, "", false},
		{`unix:///tmp/daemon.sock`, "", false},
		{`127.0.0.1:4000`, "", false},
	}
	for _, tc := range cases {
		t.Run(tc.address, func(t *testing.T) {
			got, ok := PipeAddress(tc.address)
			if got != tc.want || ok != tc.ok {
				t.Errorf("PipeAddress(%q) = %q, %v; want %q, %v", tc.address, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestUserOnlySDDL(t *testing.T) {
	cases := []struct {
		sid, rights, want string
	}{
		{"S-1-5-21-1-2-3-1001", "GA", "O:S-1-5-21-1-2-3-1001D:P(A;;GA;;;S-1-5-21-1-2-3-1001)"},
		{"S-1-5-21-9-9-9-500", "FA", "O:S-1-5-21-9-9-9-500D:P(A;;FA;;;S-1-5-21-9-9-9-500)"},
	}
	for _, tc := range cases {
		t.Run(tc.rights, func(t *testing.T) {
			if got := userOnlySDDL(tc.sid, tc.rights); got != tc.want {
				t.Errorf("userOnlySDDL = %q, want %q", got, tc.want)
			}
		})
	}
}
