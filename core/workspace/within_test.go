package workspace

import "testing"

// Containment is checked for both path styles on every platform: Windows paths (drive
// letters, backslashes, any letter case) go through the same code a Windows daemon runs.
func TestContainedIn(t *testing.T) {
	cases := []struct {
		name    string
		root, p string
		sep     byte
		fold    bool
		want    bool
	}{
		{"unix same", "/work", "/work", '/', false, true},
		{"unix child", "/work", "/work/src/a.go", '/', false, true},
		{"unix sibling prefix", "/work", "/workshop/a.go", '/', false, false},
		{"unix root", "/", "/etc/passwd", '/', false, true},
		{"unix case matters", "/Work", "/work/a", '/', false, false},
		{"windows child", `C:\Work`, `C:\Work\src\x`, '\\', true, true},
		{"windows other case", `C:\Work`, `c:\work\SRC\x`, '\\', true, true},
		{"windows sibling prefix", `C:\Work`, `C:\Workshop\x`, '\\', true, false},
		{"windows drive root", `C:\`, `C:\Users\a`, '\\', true, true},
		{"windows other drive", `C:\Work`, `D:\Work\x`, '\\', true, false},
		{"windows unc", `\\server\share\proj`, `\\server\share\proj\a.txt`, '\\', true, true},
		{"windows forward slash is not a separator here", `C:\Work`, `C:\Work/x`, '\\', true, false},
		{"empty root", "", "/x", '/', false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := containedIn(tc.root, tc.p, tc.sep, tc.fold); got != tc.want {
				t.Errorf("containedIn(%q, %q) = %v, want %v", tc.root, tc.p, got, tc.want)
			}
		})
	}
}
