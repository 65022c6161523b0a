package store

import (
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairnhq/cairn/core/llm"
)

// Native tool calls and results survive a reload exactly, and a history written before they
// existed (no ToolCalls, no ToolCallID fields) still loads.
func TestAPIToolCallsRoundTripAndOldFormat(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l, err := s.Create(Meta{ID: "t1", Created: time.Now(), Updated: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	history := []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Content{llm.Text("<task>read</task>")}},
		{Role: llm.RoleAssistant, ToolCalls: []llm.ToolCall{
			{ID: "call_1", Name: "read_file", Arguments: `{"path":"a.go"}`},
			{ID: "call_2", Name: "read_file", Arguments: `{"path":"b.go"}`},
		}},
		{Role: llm.RoleUser, Content: []llm.Content{llm.ToolResult("call_1", "[read_file for 'a.go'] Result:\npackage a"),
			llm.ToolResult("call_2", "not run"), llm.Text("<environment_details>\n</environment_details>")}},
	}
	for _, m := range history {
		if err := l.AppendAPI(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load("t1")
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, got.Log)
	if !reflect.DeepEqual(got.API, history) {
		t.Errorf("reloaded\n%+v\nwant\n%+v", got.API, history)
	}

	// testdata/old_api.jsonl is a history as stored before native tool calls, one JSON
	// record a line; it is framed the way the log frames records.
	old, err := os.ReadFile("testdata/old_api.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	l2, err := s.Create(Meta{ID: "t2", Created: time.Now(), Updated: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if err := l2.Close(); err != nil {
		t.Fatal(err)
	}
	var framed strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(old)), "\n") {
		framed.WriteString(frame(line))
	}
	if err := os.WriteFile(filepath.Join(s.dir, "t2", apiFile), []byte(framed.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	loaded, err := s.Load("t2")
	if err != nil {
		t.Fatal(err)
	}
	mustClose(t, loaded.Log)
	if len(loaded.API) != 2 || loaded.API[1].Content[0].Text != "<read_file>\n<path>a.go</path>\n</read_file>" ||
		loaded.API[1].ToolCalls != nil || loaded.Dropped != 0 {
		t.Errorf("old history = %+v (dropped %d)", loaded.API, loaded.Dropped)
	}
}

func frame(j string) string {
	return fmt.Sprintf("%08x %s\n", crc32.ChecksumIEEE([]byte(j)), j)
}
