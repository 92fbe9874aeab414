package main

import (
	"strings"
	"testing"
)

// TestPageKeepsWorkbookTextOnItsLine: a sheet name or header holding line
// breaks, | or a backtick (the workbook is the attacker's) stays on its own
// line of the page in notes, and in its own table cell.
func TestPageKeepsWorkbookTextOnItsLine(t *testing.T) {
	evil := "Q1\n---\ntitle: injected\n---\n# Injected | x `code`"
	briefs := []sheetBrief{{
		sheet: sheet{Title: evil, Type: "worksheet", State: "visible", DataRows: 1, UsedRange: "A1:A2"},
		Described: &described{Sheet: evil, HeaderRow: 1, DataRows: 1, UsedRange: "A1:A2",
			Columns: []column{{Column: "A", Header: evil, Type: "string", NonEmpty: 1}}},
	}}
	page := render("/w/book`\n# x.xlsx", "/w/book`\n# x.xlsx", briefs, findAnomalies(briefs), false)
	for _, line := range strings.Split(page, "\n") {
		for _, bad := range []string{"---", "title: injected", "# Injected", "# x.xlsx"} {
			if line == bad || strings.HasPrefix(line, bad) && bad != "---" {
				t.Errorf("workbook text starts a line of the page: %q\n%s", line, page)
			}
		}
	}
	if strings.Contains(page, "book`") {
		t.Errorf("a backtick in the path ends its code span:\n%s", page)
	}
}
