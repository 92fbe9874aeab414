package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
	"github.com/toolhost/toolhost/sdk"
)

// formatsDir holds real .xls, .ods and .xlsb workbooks from other
// readers' test suites (SOURCES.tsv), with each format's oracle's view of
// every file (FORMAT/oracle/, made by oracle_FORMAT.py).
const formatsDir = "testdata/formats"

// formatException is a cell where we differ from the format's oracle on
// purpose; README.md lists the same table.
type formatException struct {
	File, Sheet, Cell string
	Ours, Oracle      string
	Reason            string
}

var formatExceptions = map[string][]formatException{
	"ods": {
		{"calamine__tests_covered.ods", "sheet1", "A3", `"a3"`, "null", "a covered cell of a merged range holding a value: kept, as for .xlsx (see above); LibreOffice drops it"},
		{"sheetjs__formula_stress_test.ods", "Statistical", "E138", "0.1999999999999993", "0.2", "a cell of an array formula's result (LINEST in D138, its matrix spanning D138:E142), which LibreOffice recomputes on load: the file's value differs in its last digits"},
	},
}

// formatRules explain whole classes of cells where we differ from an
// oracle on purpose, each checked to be the same number read another way;
// README.md lists them.
var formatRules = map[string][]struct {
	Name  string
	Match func(ours, theirs any) bool
}{
	"ods": {
		{"a boolean: LibreOffice saves booleans as numbers 0 and 1 in its .xlsx", boolAsNumber},
		{"a number LibreOffice saves with 15 significant digits", fifteenDigits},
		{"a date before 1 March 1900: the date the file writes; LibreOffice saves its serial counted from 30 December 1899, which Excel's calendar (its phantom 29 February 1900 counted) reads as the next day", dayAfterBeforeMarch1900},
	},
	"xlsb": {
		{"a boolean: LibreOffice saves booleans as numbers 0 and 1 in its .xlsx", boolAsNumber},
		{"a number LibreOffice saves with 15 significant digits", fifteenDigits},
		{"a date below serial 61 in the 1900 system: Excel's day (its phantom 29 February 1900 counted), as for .xlsx; LibreOffice, which has no such day, gives the day before", dayBeforeMarch1900},
	},
	"xls": {
		{"elapsed format ([h]:mm:ss): an ISO-8601 duration, as for .xlsx; xlrd gives a date that many days after its epoch", elapsedAsDate},
		{"a format of elapsed hours alone ([h], [hh]): an ISO-8601 duration, as Excel shows hours; xlrd, which strips bracketed codes, the plain number of days", elapsedAsNumber},
		{"negative serial shown as a date (Excel shows ####): openpyxl's arithmetic, as for .xlsx; xlrd counts from 31 December 1899 below serial 60, a day later", negativeSerialDayLater},
	},
}

// boolAsNumber: our boolean is the oracle's 0 or 1.
func boolAsNumber(ours, theirs any) bool {
	b, ok := ours.(bool)
	n, ok2 := theirs.(json.Number)
	return ok && ok2 && ((b && n.String() == "1") || (!b && n.String() == "0"))
}

// fifteenDigits: our number rounded to 15 significant digits is the
// oracle's.
func fifteenDigits(ours, theirs any) bool {
	o, ok := ours.(json.Number)
	n, ok2 := theirs.(json.Number)
	if !ok || !ok2 {
		return false
	}
	a, _ := o.Float64()
	b, _ := n.Float64()
	x, _ := strconv.ParseFloat(strconv.FormatFloat(a, 'g', 15, 64), 64)
	return x == b
}

// elapsedAsDate: our duration is the oracle's date-time less its epoch.
func elapsedAsDate(ours, theirs any) bool {
	o, ok1 := ours.(string)
	th, ok2 := theirs.(string)
	secs, ok3 := durationSeconds(o)
	tt, err := time.Parse("2006-01-02T15:04:05.999999", th)
	if !ok1 || !ok2 || !ok3 || err != nil {
		return false
	}
	for _, epoch := range []time.Time{time.Date(1899, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC), time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if d := tt.Sub(epoch).Seconds() - secs; math.Abs(d) < 1e-3 {
			return true
		}
		if d := tt.Sub(epoch).Seconds() + secs; secs < 0 && math.Abs(d+2*secs) < 1e-3 {
			return true
		}
	}
	return false
}

// elapsedAsNumber: our duration is the oracle's number of days.
func elapsedAsNumber(ours, theirs any) bool {
	o, ok1 := ours.(string)
	th, ok2 := theirs.(json.Number)
	secs, ok3 := durationSeconds(o)
	days, err := th.Float64()
	return ok1 && ok2 && ok3 && err == nil && math.Abs(days*86400-secs) < 1e-3
}

// dayBeforeMarch1900: our date before 1 March 1900 is the oracle's plus one
// day.
func dayBeforeMarch1900(ours, theirs any) bool {
	o, ok1 := ours.(string)
	th, ok2 := theirs.(string)
	to, err1 := time.Parse("2006-01-02T15:04:05.999999", o)
	if err1 != nil {
		to, err1 = time.Parse("2006-01-02", o)
	}
	tt, err2 := time.Parse("2006-01-02T15:04:05.999999", th)
	if err2 != nil {
		tt, err2 = time.Parse("2006-01-02", th)
	}
	return ok1 && ok2 && err1 == nil && err2 == nil && to.Before(time.Date(1900, 3, 1, 0, 0, 0, 0, time.UTC)) &&
		to.Sub(tt) == 24*time.Hour
}

// dayAfterBeforeMarch1900: our date before 1 March 1900 is the oracle's
// less one day.
func dayAfterBeforeMarch1900(ours, theirs any) bool {
	return dayBeforeMarch1900(theirs, ours)
}

// formatRecalculatesFormulas names the formats whose oracle recomputes
// every formula on load whatever it is told: LibreOffice's .xlsb import
// keeps no cached result. A formula cell whose value differs is counted
// under this reason, each checked to be a formula cell; every other cell
// must agree.
var formatRecalculatesFormulas = map[string]string{
	"ods":  "a formula cell: we give the result the file stores, as the program that wrote it (Excel, for SheetJS's files) showed it; LibreOffice recomputes the formulas of a workbook another program wrote on load, and gets the time of the run for NOW() and TODAY(), new numbers for RAND(), its own INFO(), #NAME? or #VALUE! for functions it lacks or reads otherwise, or numbers that differ in their last digits",
	"xlsb": "a formula cell: we give the result the file caches, as Excel shows it; LibreOffice recomputes it on load (its .xlsb import keeps no cached results), and gets #N/A, #NAME? or #VALUE! for names and functions it lacks, the time of the run for NOW(), or a number that differs in its last digits",
}

// formatPivotSheets are sheets holding pivot tables, which LibreOffice
// rebuilds from their caches on load in its own layout ("Total Result"
// for "Grand Total", its own order of rows and columns): their cells that
// differ are counted, not failed. Every other sheet of these files must
// agree.
var formatPivotSheets = map[string]bool{
	"sheetjs__formula_stress_test.xlsb/Database":              true,
	"sheetjs__pivot_table_named_range.xlsb/PTRange":           true,
	"sheetjs__pivot_table_named_range.xlsb/PTTable":           true,
	"sheetjs__pivot_table_named_range.xlsb/PTWithLabelFilter": true,
	"sheetjs__pivot_table_test.xlsb/PTCompact":                true,
	"sheetjs__pivot_table_test.xlsb/PTOutline":                true,
	"sheetjs__pivot_table_test.xlsb/PTTabular":                true,
}

// formatOracleStates are sheet states the oracle has no word for: ours,
// then the oracle's, by format.
var formatOracleStates = map[string]map[string]string{
	"xlsb": {"veryHidden": "hidden"}, // LibreOffice has no very hidden sheets
}

// formatChartsheetsAsWorksheets names the formats whose oracle lists a
// chart sheet as a worksheet: LibreOffice has no chart sheets, and saves
// one as a worksheet holding the chart. We list it as a chartsheet.
var formatChartsheetsAsWorksheets = map[string]bool{"xlsb": true}

// formulaCells returns the cells of a sheet that hold a formula, read
// through the plugin's reader.
func formulaCells(t *testing.T, path, sheet string) map[string]bool {
	t.Helper()
	w, err := openWorkbook(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer w.Close()
	sh, ok := w.Sheet(sheet)
	if !ok {
		t.Fatalf("%s: no sheet %q", path, sheet)
	}
	out := map[string]bool{}
	_, err = w.Stream(t.Context(), sh, &workbook.StreamOptions{Formulas: true, FormulaMarks: true}, func(r workbook.Row) error {
		for c, f := range r.Formulas {
			if f != "" {
				out[workbook.CellName(r.Num, c+1)] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s/%s: %v", path, sheet, err)
	}
	return out
}

// negativeSerialDayLater: a date before 1899-12-30 that is the oracle's
// less one day.
func negativeSerialDayLater(ours, theirs any) bool {
	o, ok1 := ours.(string)
	th, ok2 := theirs.(string)
	to, err1 := time.Parse("2006-01-02T15:04:05.999999", o)
	tt, err2 := time.Parse("2006-01-02T15:04:05.999999", th)
	return ok1 && ok2 && err1 == nil && err2 == nil && to.Before(time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)) &&
		tt.Sub(to) == 24*time.Hour
}

// formatRefusals are files the oracle refuses: what we answer instead (an
// error code, or "" for a file we read).
var formatRefusals = map[string]map[string]struct {
	Code   sdk.Code
	Reason string
}{
	"ods": {
		"calamine__tests_issue_594_dos.ods":  {"", "a crafted sheet of a billion repeated cells: LibreOffice grows past the oracle's 4 GiB cap; we skip repeated empty cells"},
		"calamine__tests_pass_protected.ods": {codeEncryptedWorkbook, "password-protected: the manifest names its encryption"},
	},
	"xlsb": {
		"calamine__tests_pass_protected.xlsb": {codeEncryptedWorkbook, "password-protected: an encrypted package in a compound file"},
	},
	"xls": {
		"calamine__tests_OOM_alloc3.xls":          {codeInvalidWorkbook, "a fuzzed compound file whose directory lies past its end"},
		"calamine__tests_issue_385.xls":           {codeEncryptedWorkbook, "password-protected (FILEPASS)"},
		"calamine__tests_too_small.xls":           {codeInvalidWorkbook, "a text file under an .xls name"},
		"sheetjs__phpexcel_bad_cfb_dir.xls":       {"", "a compound file whose sector chains share sectors; the workbook stream reads whole"},
		"xlrd__tests_samples_corrupted_error.xls": {"", "a compound file whose sector chains share sectors; the workbook stream reads whole"},
		"xlrd__tests_samples_invalid_formula.xls": {"", "xlrd fails decoding a formula's tokens; we read the formula's cached value"},
	},
}

// formatExtraSheets are sheets we list that the oracle leaves out.
var formatExtraSheets = map[string]string{
	"sheetjs__BlankSheetTypes.xls/Macro1": "an Excel 4 macro sheet: listed as a worksheet, as openpyxl lists an .xlsx's; xlrd leaves macro sheets out",
}

// sameFormatValue compares our cell with the oracle's: null and "" are the
// same empty cell; numbers by value (xlrd reads every number as a float);
// dates and times as ISO-8601 within a millisecond (xlrd keeps the
// microseconds of the float, we round to milliseconds as openpyxl does).
func sameFormatValue(ours, theirs any) bool {
	switch th := theirs.(type) {
	case nil:
		return ours == nil || ours == ""
	case map[string]any:
		// openpyxl's timedelta, from an elapsed time LibreOffice saved.
		td, ok := th["timedelta_s"].(json.Number)
		o, ok2 := ours.(string)
		secs, ok3 := durationSeconds(o)
		want, _ := td.Float64()
		return ok && ok2 && ok3 && math.Abs(secs-want) < 1e-3
	case json.Number:
		o, ok := ours.(json.Number)
		if !ok {
			return false
		}
		a, _ := o.Float64()
		b, _ := th.Float64()
		return a == b || math.Abs(a-b) <= 1e-15*math.Abs(b)
	case string:
		o, ok := ours.(string)
		if !ok {
			return false
		}
		if o == th {
			return true
		}
		return sameInstant(o, th)
	default:
		return ours == theirs
	}
}

// sameInstant reports whether two ISO-8601 date-times or times are within
// a millisecond of each other.
func sameInstant(a, b string) bool {
	for _, layout := range []string{"2006-01-02T15:04:05.999999", "15:04:05.999999"} {
		ta, err1 := time.Parse(layout, a)
		tb, err2 := time.Parse(layout, b)
		if err1 == nil && err2 == nil {
			d := ta.Sub(tb)
			return d <= time.Millisecond && d >= -time.Millisecond
		}
	}
	return false
}

// formatTally is what the corpus test prints for one format.
type formatTally struct {
	files, read, cells, differing, refusedByUs, refusedByBoth, readBeyond int
	pivot, listed                                                         int
	byRule                                                                map[string]int
}

func TestFormatCorporaAgreeWithOracles(t *testing.T) {
	skipUnderRace(t)
	for _, format := range []string{"xls", "ods", "xlsb"} {
		t.Run(format, func(t *testing.T) {
			dir, err := filepath.Abs(filepath.Join(formatsDir, format, "files"))
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv(rootsEnv, dir)
			files, _ := filepath.Glob(filepath.Join(dir, "*"))
			if len(files) == 0 {
				t.Fatalf("no %s corpus files", format)
			}
			used := map[int]bool{}
			n := formatTally{byRule: map[string]int{}}
			for _, path := range files {
				n.files++
				compareFormatFile(t, format, path, used, &n)
			}
			for i, e := range formatExceptions[format] {
				if !used[i] {
					t.Errorf("exception %s %s!%s no longer occurs: remove it from the table and README.md", e.File, e.Sheet, e.Cell)
				}
			}
			t.Logf("%s: %d files, %d read (%d the oracle refuses), %d cells compared, %d differ from the oracle (each explained), %d refused by both, %d refused that the oracle reads",
				format, n.files, n.read, n.readBeyond, n.cells, n.differing, n.refusedByBoth, n.refusedByUs)
			if n.pivot > 0 {
				t.Logf("  %d cells differ in pivot tables LibreOffice rebuilds on load (formatPivotSheets), not explained cell by cell", n.pivot)
			}
			if n.listed > 0 {
				t.Logf("  %d cells: listed one by one with their reasons (formatExceptions)", n.listed)
			}
			for rule, k := range n.byRule {
				t.Logf("  %d cells: %s", k, rule)
			}
		})
	}
}

func compareFormatFile(t *testing.T, format, path string, used map[int]bool, n *formatTally) {
	t.Helper()
	file := filepath.Base(path)
	b, err := os.ReadFile(filepath.Join(formatsDir, format, "oracle", file+".json"))
	if err != nil {
		t.Errorf("%s: no oracle answer: %v", file, err)
		return
	}
	oracle := decodeJSON(t, b)
	ls, e := call(t, "list-sheets", map[string]any{"path": path})
	if oracle["ok"] != true {
		want, listed := formatRefusals[format][file]
		if !listed && strings.Contains(jsonString(oracle["error"]), "encrypted") {
			want.Code, listed = codeEncryptedWorkbook, true
		}
		switch {
		case !listed && e != nil:
			t.Errorf("%s (oracle: %v): not in formatRefusals; we answer %s: %s", file, oracle["error"], e.Code, e.Message)
		case !listed:
			t.Errorf("%s (oracle: %v): not in formatRefusals; we read it", file, oracle["error"])
		case want.Code == "" && e != nil:
			t.Errorf("%s: we refuse it (%s: %s) where the table says we read it", file, e.Code, e.Message)
		case want.Code != "" && (e == nil || e.Code != want.Code):
			t.Errorf("%s: got %v, want error %s", file, e, want.Code)
		}
		if e == nil {
			n.read++
			n.readBeyond++
		} else {
			n.refusedByBoth++
		}
		return
	}
	if e != nil {
		n.refusedByUs++
		t.Errorf("%s: the oracle reads it, we answer %s: %s", file, e.Code, e.Message)
		return
	}
	n.read++
	var ours []map[string]any
	charts := map[string]bool{}
	for _, s := range ls["sheets"].([]any) {
		m := s.(map[string]any)
		if _, extra := formatExtraSheets[file+"/"+jsonString(m["title"])]; extra {
			continue
		}
		switch m["type"] {
		case "worksheet":
			ours = append(ours, m)
		case "chartsheet":
			charts[jsonString(m["title"])] = true
		}
	}
	var theirs []any
	for _, s := range oracle["sheets"].([]any) {
		if formatChartsheetsAsWorksheets[format] && charts[jsonString(s.(map[string]any)["title"])] {
			continue
		}
		theirs = append(theirs, s)
	}
	if len(ours) != len(theirs) {
		t.Errorf("%s: %d worksheets, the oracle %d", file, len(ours), len(theirs))
		return
	}
	for i := range theirs {
		o, th := ours[i], theirs[i].(map[string]any)
		title, _ := th["title"].(string)
		state := jsonString(o["state"])
		if st, ok := formatOracleStates[format][state]; ok {
			state = st
		}
		if o["title"] != title || state != th["state"] {
			t.Errorf("%s sheet %d: %v (%v), the oracle %v (%v)", file, i, o["title"], o["state"], title, th["state"])
			continue
		}
		if m := jsonString(th["merged"]); m != "0" && jsonString(o["merged_ranges"]) != m {
			t.Errorf("%s/%s: %v merged ranges, the oracle %s", file, title, o["merged_ranges"], m)
		}
		if th["error"] != nil {
			continue
		}
		rs, e := call(t, "read-sheet", map[string]any{"path": path, "sheet": title, "skip-empty": false, "max-results": 10_000_000})
		if e != nil {
			t.Errorf("%s/%s: read-sheet: %v", file, title, e)
			continue
		}
		got := rs["rows"].([]any)
		var formulas map[string]bool
		if _, ok := formatRecalculatesFormulas[format]; ok {
			formulas = formulaCells(t, path, title)
		}
		want := map[int][]any{}
		last := 0
		for _, ir := range th["rows"].([]any) {
			m := ir.(map[string]any)
			r, _ := strconv.Atoi(jsonString(m["r"]))
			want[r] = m["v"].([]any)
			last = max(last, r)
		}
		for r := 1; r <= max(len(got), last); r++ {
			var g []any
			if r <= len(got) {
				g = got[r-1].([]any)
			}
			w := want[r]
			for c := 0; c < max(len(g), len(w)); c++ {
				var gv, wv any
				if c < len(g) {
					gv = g[c]
				}
				if c < len(w) {
					wv = w[c]
				}
				if gv == nil && (wv == nil || wv == "") {
					continue
				}
				n.cells++
				if sameFormatValue(gv, wv) {
					continue
				}
				cell := workbook.CellName(r, c+1)
				if rule := ruled(format, gv, wv); rule != "" {
					n.differing++
					n.byRule[rule]++
					continue
				}
				if reason, ok := formatRecalculatesFormulas[format]; ok && formulas[cell] {
					n.differing++
					n.byRule[reason]++
					continue
				}
				if formatPivotSheets[file+"/"+title] {
					n.pivot++
					continue
				}
				if i := findFormatException(format, file, title, cell, gv, wv); i >= 0 {
					used[i] = true
					n.differing++
					n.listed++
					continue
				}
				t.Errorf("%s/%s!%s: ours %s, the oracle %s", file, title, cell, toJSON(gv), toJSON(wv))
			}
		}
	}
}

// ruled returns the name of the rule that explains a differing cell.
func ruled(format string, ours, theirs any) string {
	for _, r := range formatRules[format] {
		if r.Match(ours, theirs) {
			return r.Name
		}
	}
	return ""
}

func findFormatException(format, file, sheet, cell string, ours, theirs any) int {
	for i, e := range formatExceptions[format] {
		if e.File == file && e.Sheet == sheet && e.Cell == cell && e.Ours == toJSON(ours) && e.Oracle == toJSON(theirs) {
			return i
		}
	}
	return -1
}
