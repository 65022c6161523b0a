package window

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/internal/golden"

	"golang.org/x/tools/txtar"

	"github.com/cairnhq/cairn/core/llm"
	"github.com/cairnhq/cairn/core/prompt"
	"github.com/cairnhq/cairn/core/tools/readfile"
)

// Dedup cases (testdata/dedup/*.txtar): the comment says what the case shows; sections
// `user` and `assistant` are messages in order, `user+` adds a content block to the previous
// message, and `want` is the deduplicated conversation (golden, rewritten with -update).
func TestDedupGolden(t *testing.T) {
	paths, err := filepath.Glob("testdata/dedup/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var msgs []llm.Message
			var want *txtar.File
			for i := range ar.Files {
				f := &ar.Files[i]
				text := strings.TrimSuffix(string(f.Data), "\n")
				switch f.Name {
				case "user", "assistant":
					msgs = append(msgs, llm.Message{Role: llm.Role(f.Name), Content: []llm.Content{llm.Text(text)}})
				case "user+":
					last := &msgs[len(msgs)-1]
					last.Content = append(last.Content, llm.Text(text))
				case "want":
					want = f
				default:
					t.Fatalf("unknown section %q", f.Name)
				}
			}
			before := clone(msgs)
			got := render(dedup(msgs))
			if !reflect.DeepEqual(msgs, before) {
				t.Fatal("dedup modified its input")
			}
			if golden.Update() {
				if want == nil {
					ar.Files = append(ar.Files, txtar.File{Name: "want"})
					want = &ar.Files[len(ar.Files)-1]
				}
				want.Data = []byte(got)
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want == nil {
				t.Fatal("no want section: run with -update")
			}
			if got != string(want.Data) {
				t.Errorf("dedup result differs from want:\n%s", got)
			}
		})
	}
}

func clone(msgs []llm.Message) []llm.Message {
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		out[i] = llm.Message{Role: m.Role, Content: append([]llm.Content(nil), m.Content...)}
	}
	return out
}

func render(msgs []llm.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString("## " + string(m.Role) + "\n")
		for i, c := range m.Content {
			if i > 0 {
				b.WriteString("### part\n")
			}
			b.WriteString(c.Text + "\n")
		}
	}
	return b.String()
}

func TestDedupKeepsLatestCopy(t *testing.T) {
	file := func(v string) string { return "package a\n\nvar V = " + v + "\n" }
	read := func(p, v string) llm.Message {
		return llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text("[read_file for '" + p + "'] Result:\n" + file(v))}}
	}
	edit := func(p, v string) llm.Message {
		return llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text("[replace_in_file for '" + p +
			"'] Result:\nsaved\n\n<final_file_content path=\"" + p + "\">\n" + file(v) + "</final_file_content>")}}
	}
	mention := func(p, v string) llm.Message {
		return llm.Message{Role: llm.RoleUser, Content: []llm.Content{llm.Text("<feedback>\nsee\n</feedback>"),
			llm.Text("<file_content path=\"" + p + "\">\n" + file(v) + "</file_content>")}}
	}
	asst := llm.Message{Role: llm.RoleAssistant, Content: []llm.Content{llm.Text("ok")}}
	for _, tc := range []struct {
		name string
		msgs []llm.Message
		// live lists the versions whose content must survive; gone those that must not.
		live, gone []string
	}{
		{"reads", []llm.Message{read("a.go", "1"), asst, read("a.go", "2"), asst, read("a.go", "3")}, []string{"3"}, []string{"1", "2"}},
		{"read then edit", []llm.Message{read("a.go", "1"), asst, edit("a.go", "2")}, []string{"2"}, []string{"1"}},
		{"edit then read", []llm.Message{edit("a.go", "1"), asst, read("a.go", "2")}, []string{"2"}, []string{"1"}},
		{"mention then edit", []llm.Message{mention("a.go", "1"), asst, edit("a.go", "2")}, []string{"2"}, []string{"1"}},
		{"read then mention", []llm.Message{read("a.go", "1"), asst, mention("a.go", "2")}, []string{"2"}, []string{"1"}},
		{"other files stay", []llm.Message{read("a.go", "1"), asst, read("b.go", "2"), asst, edit("c.go", "3")}, []string{"1", "2", "3"}, nil},
		{"one copy", []llm.Message{read("a.go", "1")}, []string{"1"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := clone(tc.msgs)
			out := dedup(tc.msgs)
			if !reflect.DeepEqual(tc.msgs, before) {
				t.Fatal("the input was modified")
			}
			if len(out) != len(tc.msgs) {
				t.Fatalf("%d messages out of %d", len(out), len(tc.msgs))
			}
			all := render(out)
			for _, v := range tc.live {
				if !strings.Contains(all, "var V = "+v+"\n") {
					t.Errorf("version %s was removed:\n%s", v, all)
				}
			}
			for _, v := range tc.gone {
				if strings.Contains(all, "var V = "+v+"\n") {
					t.Errorf("version %s was kept:\n%s", v, all)
				}
			}
			if got := strings.Count(all, "An older copy of a.go"); got != len(tc.gone) {
				t.Errorf("%d notes, want %d", got, len(tc.gone))
			}
		})
	}
}

// The texts read_file and the loop produce in place of a file's content are recognised.
func TestNotContentTexts(t *testing.T) {
	long := strings.Repeat("line\n", 50)
	rangeOut, _ := readfile.Slice(long, 2, 5, 2000)
	truncOut, _ := readfile.Slice(long, 0, 0, 10)
	whole, _ := readfile.Slice(long, 0, 0, 2000)
	for _, tc := range []struct {
		name          string
		body          string
		content, part bool
	}{
		{"tool error", prompt.ToolError("a.go does not exist"), false, false},
		{"denied", prompt.ToolDenied(), false, false},
		{"short line", "Successfully read image.", false, false},
		{"range", rangeOut, true, true},
		{"truncated", truncOut, true, true},
		{"whole", whole, true, false},
		{"one long line", strings.Repeat("x", 300), true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isContent(tc.body); got != tc.content {
				t.Errorf("isContent = %v, want %v", got, tc.content)
			}
			if got := sliceNote.Get().MatchString(tc.body); got != tc.part {
				t.Errorf("slice note matched = %v, want %v", got, tc.part)
			}
		})
	}
}
