package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/sdk"

	"github.com/xuri/excelize/v2"
)

// The actions beyond the reference's, asserted on corpus workbooks.

func corpusFile(name string) string { return filepath.Join(corpusDir, "files", name) }

func TestBeyondActionsOnCorpus(t *testing.T) {
	allowCorpus(t)
	tests := []struct {
		name, action string
		args         map[string]any
		key, want    string
	}{
		{"range of numbers", "read-range", map[string]any{"path": corpusFile("calamine__any_sheets.xlsx"), "range": "A1:B3"},
			"rows", `[[1,2],[3,4],[5,6]]`},
		{"single cell", "read-range", map[string]any{"path": corpusFile("calamine__any_sheets.xlsx"), "range": "B2"},
			"rows", `[[4]]`},
		{"range over an empty row", "read-range", map[string]any{"path": corpusFile("calamine__any_sheets.xlsx"), "range": "A4:B5"},
			"rows", `[[""],["This workbook contains 4 sheets: Visible, Hidden, VeryHidden and Chart"]]`},
		{"range bounds of the data", "read-range", map[string]any{"path": corpusFile("calamine__any_sheets.xlsx"), "range": "A4:B5"},
			"data_range", `"A4:A5"`},
		{"range of dates and an elapsed time, lower-case", "read-range", map[string]any{"path": corpusFile("calamine__date.xlsx"), "range": "b3:a1"},
			"rows", `[["2021-01-01T00:00:00",15],["2021-01-02T00:00:00",16],["PT255H10M10S",17]]`},
		{"range in a 1904 workbook", "read-range", map[string]any{"path": corpusFile("calamine__date_1904.xlsx"), "range": "A1:A2"},
			"rows", `[["2021-01-01T00:00:00"],["2021-01-02T00:00:00"]]`},
		{"range on a hidden sheet", "read-range", map[string]any{"path": corpusFile("sheetjs__sheet_visibility.xlsx"), "sheet": "VeryHidden", "range": "A1:C2"},
			"rows", `[["V","e","r"],[86,101,114]]`},
		{"records keyed by header", "records", map[string]any{"path": corpusFile("closedxml__FileWithMismatchSheetIdAndRelId.xlsx")},
			"records", `[{"Category":"Registration","Item":"Early registration","Price":1},{"Category":"Registration","Item":"Early registration","Price":1},{"Category":"Registration","Item":"Late registration","Price":2}]`},
		{"records row numbers", "records", map[string]any{"path": corpusFile("closedxml__FileWithMismatchSheetIdAndRelId.xlsx")},
			"row_numbers", `[2,3,4]`},
		{"records with a blank header", "records", map[string]any{"path": corpusFile("poi__59746_NoRowNums.xlsx"), "header-row": 3, "max-results": 1},
			"records", `[{"# Adducts":2,"Area":263061.998633582,"Checked":true,"FWHM [min]":0.177,"Max. # MI":3,"Molecular Weight":644.24221,"RT [min]":8.346,"Study File ID":"F1","column_A":""}]`},
		{"records report the rename", "records", map[string]any{"path": corpusFile("poi__59746_NoRowNums.xlsx"), "header-row": 3, "max-results": 1},
			"renamed", `[{"column":"A","header":"","key":"column_A","reason":"blank header"}]`},
		{"records page on", "records", map[string]any{"path": corpusFile("poi__59746_NoRowNums.xlsx"), "header-row": 3, "max-results": 1},
			"next_offset", `1`},
		{"search is case-insensitive, with addresses", "search", map[string]any{"path": corpusFile("sheetjs__ErrorTypes.xlsx"), "query": "#div/0"},
			"matches", `[{"cell":"A3","column":1,"row":3,"sheet":"RawErrors","value":"#DIV/0!"},{"cell":"B3","column":2,"row":3,"sheet":"RawErrors","value":"#DIV/0!"},{"cell":"C3","column":3,"row":3,"sheet":"RawErrors","value":"#DIV/0?"},{"cell":"D3","column":4,"row":3,"sheet":"RawErrors","value":"#DIV/0"}]`},
		{"search with match-case", "search", map[string]any{"path": corpusFile("sheetjs__ErrorTypes.xlsx"), "query": "#div/0", "match-case": true},
			"matches", `[]`},
		{"search stops at max-results", "search", map[string]any{"path": corpusFile("sheetjs__ErrorTypes.xlsx"), "query": "#div/0", "max-results": 2},
			"truncated", `true`},
		{"search across sheets", "search", map[string]any{"path": corpusFile("sheetjs__sheet_visibility.xlsx"), "query": "y"},
			"matches", `[{"cell":"D1","column":4,"row":1,"sheet":"VeryHidden","value":"y"}]`},
		{"search finds elapsed times", "search", map[string]any{"path": corpusFile("closedxml__CellsWithTimeSpanDataTypeOrFormatting.xlsx"), "query": "PT13H"},
			"matches", `[{"cell":"B7","column":2,"row":7,"sheet":"Sheet1","value":"PT13H30M55.2S"}]`},
		{"describe types columns", "describe", map[string]any{"path": corpusFile("closedxml__CellsWithDateTimeDataTypeOrFormatting.xlsx")},
			"columns", `[{"column":"A","header":"Format","type":"string","non_empty":16,"examples":["Custom m/d/yyyy hh:mm","Date *3/14/2012 (US)","Date *Wednesday, March 14, 2012 (US)"]},{"column":"B","header":"Test Value","type":"datetime","non_empty":16,"examples":["2012-03-14T13:30:55.200000"],"min":"2012-03-14T13:30:55.200000","max":"2012-03-14T13:30:55.200000"},{"column":"C","header":"Raw Value","type":"number","non_empty":16,"examples":[40982.56313888889],"min":40982.56313888889,"max":40982.56313888889,"formulas":16}]`},
		{"describe counts the mix", "describe", map[string]any{"path": corpusFile("sheetjs__ErrorTypes.xlsx")},
			"data_rows", `13`},
		{"list-sheets separates the claim from the data", "list-sheets", map[string]any{"path": corpusFile("calamine__issue_174.xlsx")},
			"sheets", `[{"columns":16384,"data_rows":2,"dimension":"A1:XFD1048576","rows":1048576,"state":"visible","title":"Sheet1","type":"worksheet","used_range":"A1:K2"}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := mustCall(t, tc.action, tc.args)
			if got := toJSON(out[tc.key]); got != tc.want && tc.key != "columns" {
				t.Errorf("%s = %s\nwant %s", tc.key, got, tc.want)
			} else if tc.key == "columns" {
				// describe's columns: compare the fields the test names.
				data, _ := callData(t, tc.action, tc.args, 0)
				if got := toJSON(data.(map[string]any)["columns"]); got != tc.want {
					t.Errorf("columns = %s\nwant %s", got, tc.want)
				}
			}
		})
	}
}

func TestDescribeMixedColumn(t *testing.T) {
	allowCorpus(t)
	out := mustCall(t, "describe", map[string]any{"path": corpusFile("sheetjs__ErrorTypes.xlsx")})
	col := out["columns"].([]any)[1].(map[string]any)
	if got := toJSON(col); got != `{"column":"B","examples":["#NULL!","#DIV/0!","#VALUE!"],"header":"Bang","non_empty":13,"type":"mixed","types":{"error":5,"string":8}}` {
		t.Errorf("column B = %s", got)
	}
	col = out["columns"].([]any)[6].(map[string]any)
	if got := toJSON(col); got != `{"column":"G","examples":[16,2,1],"formulas":13,"header":"Type","max":64,"min":1,"non_empty":13,"type":"integer"}` {
		t.Errorf("column G = %s", got)
	}
}

func TestRecordsMakeHeadersUnique(t *testing.T) {
	dir := allowDir(t)
	f := excelize.NewFile()
	defer f.Close()
	f.SetSheetRow("Sheet1", "A1", &[]any{"Name", "Name", nil, "Name_2", " Name "})
	f.SetSheetRow("Sheet1", "A2", &[]any{"a", "b", "c", "d", "e", "f"})
	p := filepath.Join(dir, "dups.xlsx")
	if err := f.SaveAs(p); err != nil {
		t.Fatal(err)
	}
	out := mustCall(t, "records", map[string]any{"path": p})
	if got := toJSON(out["columns"]); got != `["Name","Name_3","column_C","Name_2","Name_4","column_F"]` {
		t.Errorf("columns = %s", got)
	}
	if got := toJSON(out["records"]); got != `[{"Name":"a","Name_2":"d","Name_3":"b","Name_4":"e","column_C":"c","column_F":"f"}]` {
		t.Errorf("records = %s", got)
	}
	if got := toJSON(out["renamed"]); got != `[{"column":"B","header":"Name","key":"Name_3","reason":"duplicate header"},{"column":"C","header":"","key":"column_C","reason":"blank header"},{"column":"E","header":"Name","key":"Name_4","reason":"duplicate header"},{"column":"F","header":"","key":"column_F","reason":"no header above data"}]` {
		t.Errorf("renamed = %s", got)
	}
}

func TestReadRangeRefusesBadRanges(t *testing.T) {
	allowCorpus(t)
	for _, r := range []string{"", "A", "1:2", "A0:B2", "XFE1", "B2:"} {
		if _, e := call(t, "read-range", map[string]any{"path": corpusFile("calamine__date.xlsx"), "range": r}); e == nil || e.Code != "invalid_args" {
			t.Errorf("range %q: got %v, want invalid_args", r, e)
		}
	}
}

func TestResultsRespectTheByteBudget(t *testing.T) {
	allowCorpus(t)
	p := corpusFile("sheetjs__large_strings.xlsx")
	for _, c := range []struct {
		action string
		args   map[string]any
		key    string
	}{
		{"read-sheet", map[string]any{"path": p, "sheet": "Large Strings"}, "next_offset"},
		{"read-sheet", map[string]any{"path": p, "sheet": "longwordslist"}, "next_offset"},
		{"records", map[string]any{"path": p, "sheet": "longwordslist"}, "next_offset"},
		{"search", map[string]any{"path": p, "query": "a"}, "matches"},
		{"read-range", map[string]any{"path": p, "sheet": "longwordslist", "range": "A1:B20000"}, "next_range"},
		{"dump", map[string]any{"path": p}, "text"},
	} {
		out, e := callBudget(t, c.action, c.args, 4000)
		if e != nil {
			t.Errorf("%s: %v", c.action, e)
			continue
		}
		if out["truncated"] != true {
			t.Errorf("%s %v: truncated = %v, want true", c.action, c.args, out["truncated"])
		}
		if _, ok := out[c.key]; !ok {
			t.Errorf("%s: no %s", c.action, c.key)
		}
	}
}

func TestReadRangeOverSparseRows(t *testing.T) {
	dir := allowDir(t)
	p := filepath.Join(dir, "sparse.xlsx")
	writeZip(t, p, minimalParts(sheetHead+`<sheetData><row r="1"><c r="A1"><v>1</v></c></row><row r="500000"><c r="A500000"><v>2</v></c></row></sheetData></worksheet>`))
	out, e := callBudget(t, "read-range", map[string]any{"path": p, "range": "A1:A600000"}, 4000)
	if e != nil {
		t.Fatal(e)
	}
	rows := out["rows"].([]any)
	if out["truncated"] != true || len(rows) < 2 || len(rows) > 1000 || toJSON(rows[0]) != `[1]` {
		t.Errorf("truncated %v, %d rows starting %s", out["truncated"], len(rows), toJSON(rows[0]))
	}
	if want := "A" + itoa(len(rows)+1) + ":A600000"; out["next_range"] != want {
		t.Errorf("next_range = %v, want %s", out["next_range"], want)
	}
	out = mustCall(t, "read-range", map[string]any{"path": p, "range": "A499999:A600000"})
	if got := toJSON(out["rows"]); got != `[[""],[2]]` {
		t.Errorf("rows = %s", got)
	}
}

func TestContainsFold(t *testing.T) {
	tests := []struct {
		s, q string
		want bool
	}{
		{"Customer 0001 & Sons", "sons", true}, {"INV-0000001", "inv-", true}, {"abc", "abcd", false},
		{"ĂÎÂȘȚ lunară", "lunară", true}, {"ĂÎÂȘȚ", "ăîâșț", true}, {"Kelvin \u212a", "k", true},
		{"", "x", false}, {"xyz", "", true},
		// Candidates of either case, past a false start, up to the end.
		{"aAbAb", "ab", true}, {"AAAAAAAAAAAAAAAAAAAb", "ab", true}, {"aaaaaaaaaaaaaaaaaaaB", "ab", true},
		{"AAAAAAAAAAAAAAAAAAAA", "ab", false}, {"xxxxxxxxxxxxxxxxxxAB", "ab", true}, {"xxxxxxxxxxxxxxxxxxA", "ab", false},
		{"123-456", "-4", true}, {"Straße", "STRASSE", false}, {"long ascii text then é at the end", "then", true},
	}
	for _, tc := range tests {
		if got := containsFold([]byte(tc.s), []byte(strings.ToLower(tc.q))); got != tc.want {
			t.Errorf("containsFold(%q, %q) = %v, want %v", tc.s, tc.q, got, tc.want)
		}
	}
	// Every short text of a small alphabet agrees with lowering it first.
	rng := rand.New(rand.NewPCG(12, 0))
	word := func(alphabet string, n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return b
	}
	for range 20_000 {
		s, q := word("aAbB-", rng.IntN(14)), word("ab-", 1+rng.IntN(3))
		if got, want := containsFold(s, q), bytes.Contains(bytes.ToLower(s), q); got != want {
			t.Fatalf("containsFold(%q, %q) = %v, want %v", s, q, got, want)
		}
	}
}

func TestLongScansReportProgress(t *testing.T) {
	dir := allowDir(t)
	var sheet strings.Builder
	sheet.WriteString(sheetHead + `<sheetData>`)
	for r := 1; r <= 2*progressEvery+10; r++ {
		sheet.WriteString(`<row><c><v>1</v></c></row>`)
	}
	sheet.WriteString(`</sheetData></worksheet>`)
	p := filepath.Join(dir, "long.xlsx")
	writeZip(t, p, minimalParts(sheet.String()))
	for _, action := range []string{"list-sheets", "describe", "search"} {
		args := map[string]any{"path": p}
		if action == "search" {
			args["query"] = "x"
		}
		req, err := sdk.NewRequestFor(action, args)
		if err != nil {
			t.Fatal(err)
		}
		var events []sdk.Progress
		req = req.WithProgress(func(p sdk.Progress) { events = append(events, p) })
		if _, err := actions()[action](context.Background(), req); err != nil {
			t.Fatal(err)
		}
		if len(events) != 2 || events[1].Progress != 2*progressEvery || !strings.Contains(events[1].Message, "Sheet1") {
			t.Errorf("%s: progress events %+v, want 2 naming Sheet1", action, events)
		}
	}
}
