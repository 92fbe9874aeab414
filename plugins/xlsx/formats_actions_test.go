package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestXLSThroughEveryAction reads real .xls files through the seven
// actions, as an agent would: hidden sheets, merged ranges, errors by
// name, records and describe by header, search and dump.
func TestXLSThroughEveryAction(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join(formatsDir, "xls", "files"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(rootsEnv, dir)
	vis := filepath.Join(dir, "sheetjs__sheet_visibility.xls")
	errs := filepath.Join(dir, "sheetjs__ErrorTypes.xls")
	merged := filepath.Join(dir, "calamine__tests_merge_cells.xls")

	ls := mustCall(t, "list-sheets", map[string]any{"path": vis})
	var states []string
	for _, s := range ls["sheets"].([]any) {
		m := s.(map[string]any)
		states = append(states, m["title"].(string)+"="+m["state"].(string))
	}
	if got := strings.Join(states, ","); got != "Visible=visible,Hidden=hidden,VeryHidden=veryHidden" {
		t.Errorf("list-sheets states: %s", got)
	}
	ls = mustCall(t, "list-sheets", map[string]any{"path": merged})
	if got := toJSON(ls["sheets"].([]any)[0].(map[string]any)["merged_ranges"]); got != "3" {
		t.Errorf("merged ranges: %s, want 3", got)
	}
	// The header spread over merged cells reads as the .xlsx of the same
	// workbook does (calamine's merge_cells.xlsx).
	if got := toJSON(mustCall(t, "records", map[string]any{"path": merged})["columns"]); got != `["Row Merge / Column Merge","Row Merge / Chunk Merged","Not Merged / Chunk Merged","Chunk Merged"]` {
		t.Errorf("records columns over a merged header: %s", got)
	}

	rs := mustCall(t, "read-sheet", map[string]any{"path": vis, "sheet": "Hidden"})
	if got := toJSON(rs["rows"]); got != `[["H","i","d","d","e","n"],[72,105,100,100,101,110]]` {
		t.Errorf("read-sheet Hidden: %s", got)
	}
	rr := mustCall(t, "read-range", map[string]any{"path": errs, "range": "A2:E3"})
	if got := toJSON(rr["rows"]); got != `[["#NULL!","#NULL!","#NULL?","#NULL",1],["#DIV/0!","#DIV/0!","#DIV/0?","#DIV/0",2]]` {
		t.Errorf("read-range: %s", got)
	}
	rec := mustCall(t, "records", map[string]any{"path": errs, "max-results": 1})
	r0 := rec["records"].([]any)[0].(map[string]any)
	if r0["Error"] != "#NULL!" || r0["ISERR"] != true {
		t.Errorf("records: %s", toJSON(r0))
	}
	se := mustCall(t, "search", map[string]any{"path": errs, "query": "#N/A"})
	if m := se["matches"].([]any); len(m) == 0 || m[0].(map[string]any)["value"] != "#N/A" {
		t.Errorf("search #N/A: %s", toJSON(se["matches"]))
	}
	de := mustCall(t, "describe", map[string]any{"path": errs})
	if got := toJSON(de["columns"].([]any)[7].(map[string]any)["type"]); got != `"boolean"` {
		t.Errorf("describe ISERR type: %s", got)
	}
	du := mustCall(t, "dump", map[string]any{"path": vis})
	if text := du["text"].(string); !strings.Contains(text, "===== SHEET: VeryHidden") || !strings.Contains(text, "r1: V | e | r | y") {
		t.Errorf("dump: %s", text)
	}
}

// TestODSThroughTheActions reads real .ods files: hidden sheets, merged
// ranges, dates and times, text with spaces and line breaks.
func TestODSThroughTheActions(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join(formatsDir, "ods", "files"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(rootsEnv, dir)
	ls := mustCall(t, "list-sheets", map[string]any{"path": filepath.Join(dir, "sheetjs__sheet_visibility.ods")})
	if got := toJSON(ls["sheets"].([]any)[1].(map[string]any)["state"]); got != `"hidden"` {
		t.Errorf("Hidden sheet state: %s", got)
	}
	ls = mustCall(t, "list-sheets", map[string]any{"path": filepath.Join(dir, "calamine__tests_merged_cells.ods")})
	if got := toJSON(ls["sheets"].([]any)[0].(map[string]any)["merged_ranges"]); got != "1" {
		t.Errorf("merged ranges: %s", got)
	}
	rs := mustCall(t, "read-sheet", map[string]any{"path": filepath.Join(dir, "calamine__tests_date.ods")})
	if got := toJSON(rs["rows"]); got != `[["2021-01-01T00:00:00",15],["2021-01-01T10:10:10",16],["10:10:10",17],["10:10:10.123000",18]]` {
		t.Errorf("dates: %s", got)
	}
	rs = mustCall(t, "read-sheet", map[string]any{"path": filepath.Join(dir, "calamine__tests_special_cells.ods")})
	if got := toJSON(rs["rows"].([]any)[:2]); got != `[["Split\nLine"],["Value  With spaces"]]` {
		t.Errorf("text: %s", got)
	}
}

// TestODSMergedHeader: a header spread over merged cells
// (number-*-spanned, the covered cells beside) gives one key per column as
// for .xlsx: the label merged down counted once, the label merged across
// joined with each sub-label; describe reads the same keys.
func TestODSMergedHeader(t *testing.T) {
	dir := allowDir(t)
	path := filepath.Join(dir, "merged.ods")
	str := func(s string) string {
		return `<table:table-cell office:value-type="string"><text:p>` + s + `</text:p></table:table-cell>`
	}
	content := `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet><table:table table:name="S">` +
		`<table:table-row><table:table-cell office:value-type="string" table:number-rows-spanned="2"><text:p>Region</text:p></table:table-cell>` +
		`<table:table-cell office:value-type="string" table:number-columns-spanned="2"><text:p>Sales</text:p></table:table-cell><table:covered-table-cell/></table:table-row>` +
		`<table:table-row><table:covered-table-cell/>` + str("Q1") + str("Q2") + `</table:table-row>` +
		`<table:table-row>` + str("North") + `<table:table-cell office:value-type="float" office:value="1"/><table:table-cell office:value-type="float" office:value="2"/></table:table-row>` +
		`</table:table></office:spreadsheet></office:body></office:document-content>`
	writeZip(t, path, [][2]string{{"mimetype", "application/vnd.oasis.opendocument.spreadsheet"}, {"content.xml", content}})
	const want = `["Region","Sales / Q1","Sales / Q2"]`
	rec := mustCall(t, "records", map[string]any{"path": path})
	if got := toJSON(rec["columns"]); got != want {
		t.Errorf("records columns: %s, want %s", got, want)
	}
	if got := toJSON(rec["records"]); got != `[{"Region":"North","Sales / Q1":1,"Sales / Q2":2}]` {
		t.Errorf("records: %s", got)
	}
	var keys []string
	for _, c := range mustCall(t, "describe", map[string]any{"path": path})["columns"].([]any) {
		keys = append(keys, jsonString(c.(map[string]any)["header"]))
	}
	if got := toJSON(keys); got != want {
		t.Errorf("describe headers: %s, want %s", got, want)
	}
	ls := mustCall(t, "list-sheets", map[string]any{"path": path})
	if got := toJSON(ls["sheets"].([]any)[0].(map[string]any)["merged_ranges"]); got != "2" {
		t.Errorf("merged ranges: %s, want 2", got)
	}
}

// TestODSHostilePackages: a zip bomb is refused from the zip directory; a
// cell repeated a billion times fills Excel's 16,384 columns and no more.
func TestODSHostilePackages(t *testing.T) {
	dir := allowDir(t)
	head := `<?xml version="1.0"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet><table:table table:name="S">`
	tail := `</table:table></office:spreadsheet></office:body></office:document-content>`
	mime := [2]string{"mimetype", "application/vnd.oasis.opendocument.spreadsheet"}

	bomb := filepath.Join(dir, "bomb.ods")
	writeZip(t, bomb, [][2]string{mime, {"content.xml", head + strings.Repeat(" ", 64<<20) + tail}})
	if _, e := call(t, "read-sheet", map[string]any{"path": bomb}); e == nil || e.Code != codeWorkbookTooLarge || !strings.Contains(e.Message, "zip bomb") {
		t.Errorf("zip bomb: %v", e)
	}

	wide := filepath.Join(dir, "wide.ods")
	writeZip(t, wide, [][2]string{mime, {"content.xml", head + `<table:table-row table:number-rows-repeated="3"><table:table-cell office:value-type="float" office:value="7" table:number-columns-repeated="1000000000"/></table:table-row>` + tail}})
	ls := mustCall(t, "list-sheets", map[string]any{"path": wide})
	s := ls["sheets"].([]any)[0].(map[string]any)
	if toJSON(s["columns"]) != "16384" || toJSON(s["rows"]) != "3" {
		t.Errorf("wide: %s", toJSON(s))
	}
}

// TestXLSBThroughEveryAction reads real .xlsb files through the seven
// actions: hidden and very hidden sheets, merged ranges (a merged header
// repeated over its columns), dates in both systems, errors by name.
func TestXLSBThroughEveryAction(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join(formatsDir, "xlsb", "files"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(rootsEnv, dir)
	vis := filepath.Join(dir, "sheetjs__sheet_visibility.xlsb")
	errs := filepath.Join(dir, "sheetjs__ErrorTypes.xlsb")
	merged := filepath.Join(dir, "sheetjs__merge_cells.xlsb")

	ls := mustCall(t, "list-sheets", map[string]any{"path": vis})
	var states []string
	for _, s := range ls["sheets"].([]any) {
		m := s.(map[string]any)
		states = append(states, m["title"].(string)+"="+m["state"].(string))
	}
	if got := strings.Join(states, ","); got != "Visible=visible,Hidden=hidden,VeryHidden=veryHidden" {
		t.Errorf("list-sheets states: %s", got)
	}
	ls = mustCall(t, "list-sheets", map[string]any{"path": merged})
	if got := toJSON(ls["sheets"].([]any)[0].(map[string]any)["merged_ranges"]); got != "5" {
		t.Errorf("merged ranges: %s, want 5", got)
	}
	for _, name := range []string{"calamine__tests_date.xlsb", "calamine__tests_date_1904.xlsb"} {
		rs := mustCall(t, "read-sheet", map[string]any{"path": filepath.Join(dir, name)})
		if got := toJSON(rs["rows"]); got != `[["2021-01-01T00:00:00",15],["2021-01-02T00:00:00",16],["PT255H10M10S",17]]` {
			t.Errorf("%s dates: %s", name, got)
		}
	}
	rr := mustCall(t, "read-range", map[string]any{"path": errs, "range": "A2:E3"})
	if got := toJSON(rr["rows"]); got != `[["#NULL!","#NULL!","#NULL?","#NULL",1],["#DIV/0!","#DIV/0!","#DIV/0?","#DIV/0",2]]` {
		t.Errorf("read-range: %s", got)
	}
	rec := mustCall(t, "records", map[string]any{"path": merged})
	if got := toJSON(rec["columns"]); got != `["A1:B2","A1:B2_2","C1:C2","Separate blocks"]` {
		t.Errorf("records columns over a merged header: %s", got)
	}
	se := mustCall(t, "search", map[string]any{"path": errs, "query": "#N/A"})
	if m := se["matches"].([]any); len(m) == 0 || m[0].(map[string]any)["value"] != "#N/A" {
		t.Errorf("search #N/A: %s", toJSON(se["matches"]))
	}
	de := mustCall(t, "describe", map[string]any{"path": errs})
	if got := toJSON(de["columns"].([]any)[7].(map[string]any)["type"]); got != `"boolean"` {
		t.Errorf("describe ISERR type: %s", got)
	}
	du := mustCall(t, "dump", map[string]any{"path": vis})
	if text := du["text"].(string); !strings.Contains(text, "===== SHEET: VeryHidden") || !strings.Contains(text, "r1: V | e | r | y") {
		t.Errorf("dump: %s", text)
	}
}

// TestBinaryFormulaTextThroughActions: .xls and .xlsb formulas come as
// text, as from the .xlsx of the same workbook; a formula holding a token
// not decompiled (an .xlsb array constant) comes as no text with the
// reason, never as a wrong text, in read-sheet and records, and dump shows
// its value alone.
func TestBinaryFormulaTextThroughActions(t *testing.T) {
	dir, err := filepath.Abs(formatsDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(rootsEnv, dir)
	for _, f := range []string{"xls/files/sheetjs__formula_stress_test.xls", "xlsb/files/sheetjs__formula_stress_test.xlsb"} {
		rs := mustCall(t, "read-sheet", map[string]any{"path": filepath.Join(dir, f), "sheet": "Lookup", "formulas": true, "max-results": 3})
		if got := toJSON(rs["rows"].([]any)[1]); got != `["COLUMN",{"cached":true,"formula":"=COLUMN(C2)","value":3}]` {
			t.Errorf("%s read-sheet formula: %s", f, got)
		}
	}
	xlsb := filepath.Join(dir, "xlsb", "files", "sheetjs__formula_stress_test.xlsb")
	rr := mustCall(t, "read-range", map[string]any{"path": xlsb, "sheet": "Information", "range": "A17:B17", "formulas": true})
	cell := rr["rows"].([]any)[0].([]any)[1].(map[string]any)
	if f, ok := cell["formula"]; !ok || f != nil || !strings.HasPrefix(jsonString(cell["reason"]), "no formula text: ") || cell["cached"] != true || toJSON(cell["value"]) != "64" {
		t.Errorf(".xlsb array constant: %s", toJSON(cell))
	}
	rec := mustCall(t, "records", map[string]any{"path": xlsb, "sheet": "Information", "formulas": true, "header-row": 1, "max-results": 20})
	if got := toJSON(rec["records"]); !strings.Contains(got, `"formula":null`) || !strings.Contains(got, "no formula text: ") {
		t.Errorf(".xlsb records: %s", got)
	}
	du := mustCall(t, "dump", map[string]any{"path": xlsb, "formulas": true})
	if text := du["text"].(string); strings.Contains(text, "array constant") || !strings.Contains(text, "TYPE | 64\n") {
		t.Errorf(".xlsb dump shows the reason as a formula, or not the value: %s", text[:min(len(text), 400)])
	}
}
