package search

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMatchesRipgrep compares the (file, line) set of Search with ripgrep's on a corpus built
// to exercise its default filters.
func TestMatchesRipgrep(t *testing.T) {
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("ripgrep (rg) is not installed: apt-get install -y ripgrep to run this comparison")
	}
	root := t.TempDir()
	writeCorpus(t, root)
	tests := []struct{ regex, glob string }{
		{`func main`, ""},
		{`func main`, "*.go"},
		{`func main`, "!*.go"},
		{`func main`, "cmd/**/*.go"},
		{`[A-Z][a-z]+Error\(`, ""},
		{`(?i)deadline`, ""},
		{`^func \w+\(\)`, ""},
		{`TODO|Title`, ""},
		{`^$`, ""},
		{`\s+$`, ""},
		{`e$`, ""},
		{`x*`, "*.md"},
		{`deadline\(\)`, "src/*.go"},
		{`Err(or|Deadline)`, "*.{go,md}"},
	}
	for _, tc := range tests {
		t.Run(tc.regex+" "+tc.glob, func(t *testing.T) {
			res, err := Search(context.Background(), root, Options{Regex: tc.regex, FilePattern: tc.glob, MaxResults: 1 << 20})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Files {
				rel, _ := filepath.Rel(root, f.Path)
				for _, g := range f.Groups {
					for _, l := range g {
						if l.IsMatch {
							got = append(got, rel+":"+itoa(l.Num))
						}
					}
				}
			}
			want := runRipgrep(t, rg, root, tc.regex, tc.glob)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("matches differ from rg\n got %q\nwant %q", got, want)
			}
			if len(want) == 0 {
				t.Errorf("corpus has no match for %q: the case proves nothing", tc.regex)
			}
		})
	}
}

func runRipgrep(t *testing.T, rg, root, regex, glob string) []string {
	t.Helper()
	args := []string{"-n", "--no-heading", "--no-messages", "--color=never", "-e", regex}
	if glob != "" {
		args = append(args, "--glob", glob)
	}
	args = append(args, ".")
	cmd := exec.Command(rg, args...)
	cmd.Dir = root
	// No user configuration or global gitignore may change ripgrep's defaults.
	home := t.TempDir()
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		return nil // no match
	} else if err != nil {
		t.Fatalf("rg %q: %v", args, err)
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		// path:line:text; paths in the corpus hold no colon.
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) < 3 {
			t.Fatalf("unexpected rg line %q", sc.Text())
		}
		lines = append(lines, filepath.Clean(parts[0])+":"+parts[1])
	}
	slices.Sort(lines)
	return lines
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
