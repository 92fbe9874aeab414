// Command xlsx is the toolhost plugin that reads local Excel workbooks
// (.xlsx, .xlsm): it lists sheets, reads sheets, ranges and header-keyed
// records, searches cells and describes columns, streaming each sheet so
// memory does not grow with its row count. Run by hand it is a CLI:
//
//	xlsx read-sheet --path book.xlsx --max-results 5
package main

import "github.com/toolhost/toolhost/sdk"

func main() {
	sdk.Main(sdk.Plugin{Actions: actions()})
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
