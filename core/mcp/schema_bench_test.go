package mcp

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// benchSchema is an input schema of the size MCP servers send: nested objects, an enum, an
// array of objects and a local reference.
const benchSchema = `{"type":"object","required":["path","edits"],"properties":{
"path":{"type":"string","description":"The file to edit."},
"mode":{"type":"string","enum":["replace","insert","append"]},
"dryRun":{"type":"boolean","default":false},
"edits":{"type":"array","minItems":1,"items":{"$ref":"#/$defs/edit"}}},
"$defs":{"edit":{"type":"object","required":["oldText","newText"],"additionalProperties":false,
"properties":{"oldText":{"type":"string"},"newText":{"type":"string"},"line":{"type":"integer","minimum":1}}}}}`

// BenchmarkSchemaFirstUse is what the first call of a tool pays for checking its arguments:
// resolving the tool's input schema and validating one call against it. The validator has no
// meta-schemas to compile when the process starts (docs/performance.md, "P5 — the daemon at
// rest"); later calls of the tool reuse the resolved schema (validate-ns is that cost alone).
func BenchmarkSchemaFirstUse(b *testing.B) {
	var args any
	if err := json.Unmarshal([]byte(`{"path":"a.go","mode":"replace","edits":[{"oldText":"x","newText":"y","line":3}]}`), &args); err != nil {
		b.Fatal(err)
	}
	var rs *jsonschema.Resolved
	for b.Loop() {
		var err error
		rs, err = resolveSchema(benchSchema)
		if err != nil {
			b.Fatal(err)
		}
		if err := rs.Validate(args); err != nil {
			b.Fatal(err)
		}
	}
	const n = 1000
	start := time.Now()
	for range n {
		if err := rs.Validate(args); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start).Nanoseconds())/n, "validate-ns")
}
