package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairnhq/cairn/core/llm/llmtest"
)

// TestRunWithInvalidUTF8 runs `cairn run` with a task text that is not valid UTF-8 in a
// workspace holding a Latin-1 file name: neither may end the run (protobuf refuses invalid
// UTF-8 in strings), and the model's U+FFFD spelling of the name reads the file.
func TestRunWithInvalidUTF8(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "caf\xe9.txt"), []byte("latte\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs, _ := runCLI(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<list_files>\n<path>.</path>\n</list_files>",
			Expect: &llmtest.Expect{LastUserContains: []string{"<task>\nsummarise caf\uFFFD notes\n</task>"}}},
		{Text: "<read_file>\n<path>caf\uFFFD.txt</path>\n</read_file>",
			Expect: &llmtest.Expect{LastUserContains: []string{"[list_files for '.'] Result:", "caf\uFFFD.txt"}}},
		{Text: completion, Expect: &llmtest.Expect{LastUserContains: []string{"latte"}}},
	}}, "-C", ws, "--auto-approve", "read", "summarise caf\xe9 notes")
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	if !strings.Contains(out, "All done.") {
		t.Errorf("stdout lacks the completion:\n%s", out)
	}
}

// TestRunWritesFiveMegabytes: the tool ask of a 5 MB write_to_file is one gRPC message bigger
// than grpc-go's default 4 MB limit; the run must still complete and write the file.
func TestRunWritesFiveMegabytes(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n"
	content := strings.Repeat(line, 5<<20/len(line)+1)
	code, out, errs, ws := runCLI(t, llmtest.Script{Turns: []llmtest.Turn{
		{Text: "<write_to_file>\n<path>big.txt</path>\n<content>\n" + content + "</content>\n</write_to_file>", ChunkSize: 64 << 10},
		{Text: completion, Expect: &llmtest.Expect{LastUserContains: []string{"[write_to_file for 'big.txt'] Result:", "successfully saved"}}},
	}}, "--auto-approve", "edit", "write a big file")
	if code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s\nstdout tail:\n%s", code, errs, out[max(0, len(out)-2000):])
	}
	got, err := os.ReadFile(filepath.Join(ws, "big.txt"))
	if err != nil || len(got) != len(content) || string(got) != content {
		t.Fatalf("big.txt: %d bytes (want %d), %v", len(got), len(content), err)
	}
}
