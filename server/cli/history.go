package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cairnhq/cairn/core/store"
)

// history lists saved tasks, newest first.
func history(_ context.Context, args []string, stdio IO) int {
	fs := newFlags("history", stdio)
	asJSON := fs.Bool("json", false, "print JSON")
	dataFlag := fs.String("data-dir", "", "data directory")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	st, err := store.Open(dataDir(*dataFlag))
	if err != nil {
		stdio.errf("cairn history: %v\n", err)
		return exitFailure
	}
	metas, err := st.List()
	if err != nil {
		stdio.errf("cairn history: %v\n", err)
		return exitFailure
	}
	if *asJSON {
		type row struct {
			store.Meta
			SizeBytes int64 `json:"sizeBytes"`
		}
		rows := make([]row, 0, len(metas))
		for _, m := range metas {
			rows = append(rows, row{m, m.SizeBytes})
		}
		enc := json.NewEncoder(stdio.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rows); err != nil {
			stdio.errf("cairn history: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	// The table is laid out in memory and written once, so a failed write is seen.
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	rows := []string{"ID\tUPDATED\tTOKENS\tCOST\tTITLE\n"}
	for _, m := range metas {
		rows = append(rows, fmt.Sprintf("%s\t%s\t%d\t$%.4f\t%s\n", m.ID, m.Updated.Local().Format("2006-01-02 15:04"),
			m.TokensIn+m.TokensOut, m.Cost, m.Title))
	}
	for _, r := range rows {
		if _, err := io.WriteString(w, r); err != nil {
			stdio.errf("cairn history: %v\n", err)
			return exitFailure
		}
	}
	if err := w.Flush(); err != nil {
		stdio.errf("cairn history: %v\n", err)
		return exitFailure
	}
	return stdio.emit(b.String())
}
