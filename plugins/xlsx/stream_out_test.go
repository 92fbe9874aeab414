package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

// TestDumpSavedEqualsInline checks that dump streamed into a file (through
// scratch files, in chunks that may split a character) writes exactly the
// text it returns inline, and counts the same characters, on real
// workbooks with several sheets and non-ASCII text.
func TestDumpSavedEqualsInline(t *testing.T) {
	dir := allowDir(t)
	for _, name := range []string{"sheetjs__rich_text_stress.xlsx", "sheetjs__sheet_visibility.xlsx", "tealeg__inlineStrings.xlsx", "sheetjs__BlankSheetTypes.xlsm"} {
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(corpusFile(name))
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			inline := mustCall(t, "dump", map[string]any{"path": p})
			dest := filepath.Join(dir, name+".txt")
			saved := mustCall(t, "dump", map[string]any{"path": p, "save": dest})
			got, err := os.ReadFile(dest)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != inline["text"] {
				t.Errorf("saved text differs from the inline text:\nsaved  %q\ninline %q", got, inline["text"])
			}
			if toJSON(saved["characters"]) != toJSON(inline["characters"]) || toJSON(inline["characters"]) == "0" {
				t.Errorf("characters: saved %v, inline %v", saved["characters"], inline["characters"])
			}
			if want := itoa(utf8.RuneCount(got)); toJSON(saved["characters"]) != want {
				t.Errorf("characters = %v, but the text has %s", saved["characters"], want)
			}
			if !strings.Contains(string(got), "===== SHEET:") {
				t.Errorf("no sheet header in %q", got)
			}
		})
	}
}

// TestRecordsKeepColumnOrder checks that records, encoded as they stream,
// keep their keys in the sheet's column order (not sorted).
func TestRecordsKeepColumnOrder(t *testing.T) {
	dir := allowDir(t)
	p := filepath.Join(dir, "order.xlsx")
	writeZip(t, p, minimalParts(`<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`+
		`<row r="1"><c r="A1" t="inlineStr"><is><t>zeta</t></is></c><c r="B1" t="inlineStr"><is><t>alpha</t></is></c><c r="C1" t="inlineStr"><is><t>mid</t></is></c></row>`+
		`<row r="2"><c r="A2"><v>1</v></c><c r="C2"><v>3</v></c></row></sheetData></worksheet>`))
	data, e := callData(t, "records", map[string]any{"path": p}, 0)
	if e != nil {
		t.Fatal(e)
	}
	b, err := json.Marshal(data.(map[string]any)["records"])
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `[{"zeta":1,"alpha":null,"mid":3}]`; got != want {
		t.Errorf("records = %s, want %s", got, want)
	}
}

// repeatedString is a workbook of a short header row over rows whose every
// cell is one shared string of Excel's longest length, 32,767 characters: a few kilobytes
// on disk, megabytes per row as JSON (issue 12 item 9).
func repeatedString(t *testing.T, dir string, rowCount, cols int) string {
	t.Helper()
	var sheet strings.Builder
	sheet.WriteString(`<row r="1">`)
	for c := 1; c <= cols; c++ {
		fmt.Fprintf(&sheet, `<c r="%s" t="inlineStr"><is><t>h%d</t></is></c>`, workbook.CellName(1, c), c)
	}
	sheet.WriteString(`</row>`)
	for r := 2; r <= rowCount; r++ {
		fmt.Fprintf(&sheet, `<row r="%d">`, r)
		for c := 1; c <= cols; c++ {
			fmt.Fprintf(&sheet, `<c r="%s" t="s"><v>0</v></c>`, workbook.CellName(r, c))
		}
		sheet.WriteString(`</row>`)
	}
	b := craft{sheet: rows(sheet.String()),
		sst: `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><si><t>` + strings.Repeat("x", 32767) + `</t></si></sst>`}.bytes(t)
	p := filepath.Join(dir, fmt.Sprintf("repeated_%dx%d.xlsx", rowCount, cols))
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCLIBudget checks that a call without a byte budget (CLI mode) still
// has one sized by max-results: a few rows of a sheet of huge strings
// print about a megabyte, not the whole sheet, say they were truncated and
// how to go on; a single row larger than the budget comes cut, naming the
// range of the rest.
func TestCLIBudget(t *testing.T) {
	dir := allowDir(t)
	narrow := repeatedString(t, dir, 6, 20) // 655 KB of JSON per row
	wide := repeatedString(t, dir, 5, 40)   // 1.3 MB per row
	tests := []struct {
		name, action string
		args         map[string]any
		key, want    string
		nextStep     string
	}{
		{"read-sheet stops at the budget", "read-sheet", map[string]any{"path": narrow, "max-results": 3}, "next_offset", "2", ""},
		{"records stop at the budget", "records", map[string]any{"path": narrow, "max-results": 3}, "next_offset", "1", ""},
		{"search stops at the budget", "search", map[string]any{"path": narrow, "query": "xx"}, "next_offset", "31", ""},
		{"a row over the budget is cut", "read-sheet", map[string]any{"path": wide, "max-results": 3, "offset": 1}, "next_offset", "2", "only its first 31 of 40 cells are shown; read-range AF2:AN2 reads the rest"},
		{"a large max-results lifts the budget", "read-sheet", map[string]any{"path": narrow, "max-results": 100000}, "truncated", "false", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data, e := callData(t, tc.action, tc.args, 0)
			if e != nil {
				t.Fatal(e)
			}
			b, err := json.Marshal(data)
			if err != nil {
				t.Fatal(err)
			}
			out := decodeJSON(t, b)
			if got := toJSON(out[tc.key]); got != tc.want {
				t.Errorf("%s = %s, want %s", tc.key, got, tc.want)
			}
			if tc.key == "next_offset" && (len(b) > cliBudgetMin+4096 || out["truncated"] != true) {
				t.Errorf("result is %d bytes, truncated %v: want at most the %d-byte budget and truncated", len(b), out["truncated"], cliBudgetMin)
			}
			if ns, _ := out["next_step"].(string); !strings.Contains(ns, tc.nextStep) {
				t.Errorf("next_step = %q, want it to say %q", ns, tc.nextStep)
			}
		})
	}
}

// TestBorrowedTextKept checks that what the actions keep past a row —
// describe's headers and examples, search's matches, records' keys — is
// their own copy, not the reader's row buffer (StreamOptions.Borrow),
// which later rows overwrite: formula strings (t="str") and error cells
// are borrowed.
func TestBorrowedTextKept(t *testing.T) {
	dir := allowDir(t)
	var sheet strings.Builder
	sheet.WriteString(`<row r="1"><c r="A1" t="str"><f>"alpha"</f><v>alpha</v></c><c r="B1" t="str"><v>beta</v></c></row>`)
	for r := 2; r <= 40; r++ {
		fmt.Fprintf(&sheet, `<row r="%d"><c r="A%d" t="str"><v>v%02d-%s</v></c><c r="B%d" t="e"><v>#N/A</v></c></row>`, r, r, r, strings.Repeat("z", r), r)
	}
	p := filepath.Join(dir, "borrowed.xlsx")
	if err := os.WriteFile(p, craft{sheet: rows(sheet.String())}.bytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	desc := mustCall(t, "describe", map[string]any{"path": p})
	cols := desc["columns"].([]any)
	a, b := cols[0].(map[string]any), cols[1].(map[string]any)
	if a["header"] != "alpha" || b["header"] != "beta" {
		t.Errorf("headers = %v, %v; want alpha, beta", a["header"], b["header"])
	}
	if got, want := toJSON(a["examples"]), `["v02-zz","v03-zzz","v04-zzzz"]`; got != want {
		t.Errorf("examples = %s, want %s", got, want)
	}
	found := mustCall(t, "search", map[string]any{"path": p, "query": "v0"})
	var values []string
	for _, m := range found["matches"].([]any) {
		values = append(values, m.(map[string]any)["value"].(string))
	}
	if got, want := strings.Join(values, ","), "v02-zz,v03-zzz,v04-zzzz,v05-zzzzz,v06-zzzzzz,v07-zzzzzzz,v08-zzzzzzzz,v09-zzzzzzzzz"; got != want {
		t.Errorf("matches = %s, want %s", got, want)
	}
	recs := mustCall(t, "records", map[string]any{"path": p, "max-results": 1, "offset": 30})
	if got, want := toJSON(recs["columns"]), `["alpha","beta"]`; got != want {
		t.Errorf("columns = %s, want %s", got, want)
	}
}
