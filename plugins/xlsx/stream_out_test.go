package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
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
