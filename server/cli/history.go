package cli

import (
	"context"
	"encoding/json"
	"fmt"
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
		fmt.Fprintf(stdio.Err, "cairn history: %v\n", err)
		return exitFailure
	}
	metas, err := st.List()
	if err != nil {
		fmt.Fprintf(stdio.Err, "cairn history: %v\n", err)
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
			return exitFailure
		}
		return exitOK
	}
	w := tabwriter.NewWriter(stdio.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tUPDATED\tTOKENS\tCOST\tTITLE")
	for _, m := range metas {
		fmt.Fprintf(w, "%s\t%s\t%d\t$%.4f\t%s\n", m.ID, m.Updated.Local().Format("2006-01-02 15:04"),
			m.TokensIn+m.TokensOut, m.Cost, m.Title)
	}
	_ = w.Flush()
	return exitOK
}
