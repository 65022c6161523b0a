// Command cairn-helper is the daemon's second executable (core/helper): what few tasks need and
// whose libraries are heavy to load runs here, started by the daemon on first use, so the
// daemon starts and idles without them (docs/performance.md, "P5 — the daemon at rest"). The
// tree-sitter grammars are here too: they are C code, and the daemon runs none (it is built
// without cgo), so a grammar that crashes ends one helper run, not the daemon.
//
//	cairn-helper pdf-text             a PDF on stdin, its text on stdout
//	cairn-helper docx-text            a Word document on stdin, its text on stdout
//	cairn-helper decode-text          text that is not UTF-8 on stdin; on stdout the name of
//	                                  the encoding it was read in, a newline, and the text
//	cairn-helper html-markdown BASE   an HTML page on stdin, Markdown on stdout; links resolve against BASE
//	cairn-helper otel                 OpenTelemetry export of the events the daemon writes to stdin
//	cairn-helper code-definitions     per line of stdin, a JSON array of source file paths;
//	                                  per line of stdout, their tree-sitter definitions
//	                                  (core/tools/codedefs), until stdin ends
//
// An input it cannot convert exits with status 3 (core/helper.RefusedStatus) and says why on
// stderr; a wrong command line exits with 2.
package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/cairnhq/cairn/core/convert"
	"github.com/cairnhq/cairn/core/helper"
	"github.com/cairnhq/cairn/core/tools/codedefs"
	"github.com/cairnhq/cairn/core/tools/codedefs/treesitter"
	"github.com/cairnhq/cairn/server/otel/exporter"
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		complain(stderr, "usage: cairn-helper pdf-text | docx-text | decode-text | html-markdown BASE | otel | "+codedefs.HelperCommand)
		return 2
	}
	convertWith := func(f func([]byte) (string, error)) int {
		in, err := io.ReadAll(stdin)
		if err != nil {
			complain(stderr, err)
			return 1
		}
		out, err := f(in)
		if err != nil {
			complain(stderr, err)
			return helper.RefusedStatus
		}
		if _, err := io.WriteString(stdout, out); err != nil {
			complain(stderr, err)
			return 1
		}
		return 0
	}
	switch {
	case args[0] == "pdf-text" && len(args) == 1:
		return convertWith(convert.PDFText)
	case args[0] == "docx-text" && len(args) == 1:
		return convertWith(convert.DOCXText)
	case args[0] == "decode-text" && len(args) == 1:
		return convertWith(func(b []byte) (string, error) {
			text, charset, err := convert.LegacyText(b)
			return charset + "\n" + text, err
		})
	case args[0] == "html-markdown" && len(args) == 2:
		return convertWith(func(b []byte) (string, error) { return convert.HTMLToMarkdown(string(b), args[1]) })
	case args[0] == codedefs.HelperCommand && len(args) == 1:
		if err := treesitter.Serve(context.Background(), stdin, stdout); err != nil {
			complain(stderr, err)
			return 1
		}
		return 0
	case args[0] == "otel":
		return exporter.Main(args[1:], stdin, stderr)
	}
	complain(stderr, fmt.Sprintf("cairn-helper: unknown command %q", args))
	return 2
}

// complain tells the daemon what went wrong; it reads stderr only to report it, so a failed
// write there has nowhere else to go.
func complain(stderr io.Writer, a any) { _, _ = fmt.Fprintln(stderr, a) }
