// Command xlsx is the toolhost plugin that reads local Excel workbooks
// (.xlsx, .xlsm): it lists sheets, reads sheets, ranges and header-keyed
// records, searches cells and describes columns, streaming each sheet so
// memory does not grow with its row count. Run by hand it is a CLI:
//
//	xlsx read-sheet --path book.xlsx --max-results 5
package main

import (
	"os"
	"runtime"
	"runtime/debug"

	"github.com/toolhost/toolhost/sdk"
)

func main() {
	if !sdk.Resident() {
		deferFirstCollection()
	}
	sdk.Main(sdk.Plugin{Actions: actions()})
}

// cliFirstGCPercent is the collector's percentage until its first cycle in
// CLI mode: the first collection comes at a 16 MB heap, not 4 MB.
const cliFirstGCPercent = 400

// deferFirstCollection lets a CLI run's heap grow to 16 MB before the
// first collection, then collects as usual (GOGC 100): a mid-size sheet,
// which allocates a few megabytes in all, then runs no collection, and a
// large sheet pays one fewer and keeps the default's memory. A GOGC the
// person set is left alone.
func deferFirstCollection() {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(cliFirstGCPercent)
	sentinel := &struct{ _ *int }{}
	runtime.AddCleanup(sentinel, func(int) { debug.SetGCPercent(100) }, 0)
}

// actions maps every action of tool.yaml to its handler, each run within
// the memory budget and concurrency limit (see memory.go).
func actions() map[string]sdk.Handler {
	m := map[string]sdk.Handler{
		"list-sheets": listSheets,
		"read-sheet":  readSheet,
		"dump":        dump,
		"read-range":  readRange,
		"records":     records,
		"search":      search,
		"describe":    describe,
	}
	for name, h := range m {
		m[name] = limited(h)
	}
	return m
}
