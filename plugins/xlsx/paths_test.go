package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/sdk"
)

// TestPathConveniences covers a path with ~, a folder passed as a path and
// a template (.xltx), which openpyxl reads.
func TestPathConveniences(t *testing.T) {
	dir := allowDir(t)
	t.Setenv("HOME", dir)
	sheet := sheetHead + `<sheetData><row r="1"><c r="A1"><v>7</v></c></row></sheetData></worksheet>`
	writeZip(t, filepath.Join(dir, "book.xlsx"), minimalParts(sheet))
	writeZip(t, filepath.Join(dir, "template.xltx"), minimalParts(sheet))
	tests := []struct {
		name, path string
		code       sdk.Code
		message    string
	}{
		{"tilde", "~/book.xlsx", "", ""},
		{"template", filepath.Join(dir, "template.xltx"), "", ""},
		{"folder", dir, sdk.CodeInvalidArgs, "is a folder, not a workbook"},
		{"tilde folder", "~", sdk.CodeInvalidArgs, "is a folder, not a workbook"},
		{"csv", filepath.Join(dir, "book.csv"), sdk.CodeNotFound, "file not found"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, e := call(t, "read-sheet", map[string]any{"path": tc.path})
			switch {
			case tc.code == "" && e != nil:
				t.Fatalf("got %v, want a result", e)
			case tc.code == "":
				if got := toJSON(out["rows"]); got != "[[7]]" {
					t.Errorf("rows = %s, want [[7]]", got)
				}
			case e == nil || e.Code != tc.code || !strings.Contains(e.Message, tc.message):
				t.Errorf("got %v, want %s %q", e, tc.code, tc.message)
			}
		})
	}
	t.Run("folder suggests its workbooks", func(t *testing.T) {
		_, e := call(t, "read-sheet", map[string]any{"path": dir})
		if e == nil || len(e.DidYouMean) != 2 || e.DidYouMean[0] != filepath.Join(dir, "book.xlsx") {
			t.Errorf("got %+v, want did_you_mean with book.xlsx and template.xltx", e)
		}
	})
}
