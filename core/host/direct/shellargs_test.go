package direct

import "testing"

func TestCmdLine(t *testing.T) {
	cases := []struct {
		name, shell, command, want string
	}{
		{"cmd", `C:\Windows\System32\cmd.exe`, `echo a & dir "C:\x y"`, `C:\Windows\System32\cmd.exe /d /s /c "echo a & dir "C:\x y""`},
		{"cmd upper case", `CMD.EXE`, `ver`, `CMD.EXE /d /s /c "ver"`},
		{"powershell", `powershell.exe`, `Get-ChildItem -Path "C:\a b\"`, `powershell.exe -NoProfile -NonInteractive -Command "Get-ChildItem -Path \"C:\a b\\\""`},
		{"pwsh in a folder with spaces", `C:\Program Files\PowerShell\7\pwsh.exe`, `echo 1`, `"C:\Program Files\PowerShell\7\pwsh.exe" -NoProfile -NonInteractive -Command "echo 1"`},
		{"git bash", `C:\Program Files\Git\bin\bash.exe`, `ls -la`, `"C:\Program Files\Git\bin\bash.exe" -c "ls -la"`},
		{"posix path", `/bin/sh`, `true`, `/bin/sh -c true`},
		{"empty command", `/bin/sh`, ``, `/bin/sh -c ""`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := cmdLine(tc.shell, tc.command); got != tc.want {
				t.Errorf("cmdLine(%q, %q)\n got %s\nwant %s", tc.shell, tc.command, got, tc.want)
			}
		})
	}
}

func TestQuoteArg(t *testing.T) {
	cases := []struct{ in, want string }{
		{`plain`, `plain`},
		{`a b`, `"a b"`},
		{`C:\dir\`, `C:\dir\`},
		{`C:\dir x\`, `"C:\dir x\\"`},
		{`say "hi"`, `"say \"hi\""`},
		{`a\"b`, `"a\\\"b"`},
		{``, `""`},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			if got := quoteArg(tc.in); got != tc.want {
				t.Errorf("quoteArg(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}
