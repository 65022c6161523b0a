package shellcmd

import "testing"

// BenchmarkOptTables is what building the option tables costs, paid by the first command
// classified rather than at process start (docs/performance.md, "P5 — the daemon at rest"):
// every table of the programs, the wrappers and git's subcommands, built afresh.
func BenchmarkOptTables(b *testing.B) {
	var tables []*optTable
	for _, p := range programs.Get() {
		tables = append(tables, p.opts)
	}
	for _, p := range wrapperOptionTables.Get() {
		tables = append(tables, p.opts)
	}
	for _, t := range gitSubs.Get() {
		tables = append(tables, t)
	}
	tables = append(tables, gitGlobal, envAlone.opts, timeOutput)
	b.ReportMetric(float64(len(tables)), "tables")
	for b.Loop() {
		for _, t := range tables {
			if t != nil {
				sinkOpts = t.build()
			}
		}
	}
}

// sinkOpts keeps the compiler from dropping the built tables.
var sinkOpts parsedOpts
