package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
	"github.com/toolhost/toolhost/sdk"
)

// corpusDir holds real workbooks from seven projects' test suites, with
// openpyxl 3.0.9's view of each (oracle/) and their origins and licences
// (SOURCES.tsv).
const corpusDir = "testdata/corpus"

// cellException is a cell where this plugin deliberately differs from
// openpyxl. Ours and Openpyxl are the JSON of each value (openpyxl's as the
// oracle records it). README.md lists the same table.
type cellException struct {
	File, Sheet, Cell string
	Ours, Openpyxl    string
	Reason            string
}

const (
	reasonX000D = "OOXML escapes a carriage return as _x000D_; we decode it, openpyxl 3.0.9 keeps the escape"
)

var corpusExceptions = []cellException{
	{"calamine__has_x000D_.xlsx", "Sheet1", "A1", `"ABC\r\nDEF"`, `"ABC_x000D_\nDEF"`, reasonX000D},
	{"calamine__has_x000D_inline.xlsx", "Sheet1", "A1", `"ABC\r\nDEF"`, `"ABC_x000D_\nDEF"`, reasonX000D},
	{"poi__60289.xlsx", "TABLE", "B2", `"Rich Text\r\nTest"`, `"Rich Text_x000d_\nTest"`, reasonX000D},
}

// corpusBeyond lists the files openpyxl refuses or reads without sheets:
// what we answer instead — an error code, or the sheets we read.
var corpusBeyond = map[string]struct {
	Code   sdk.Code
	Sheets string // JSON of the sheet titles we list
	First  string // JSON of read-sheet's rows on the first worksheet
	Reason string
}{
	"calamine__pass_protected.xlsx": {Code: codeEncryptedWorkbook, Reason: "an encrypted package is an OLE compound file: refused by its signature"},
	"excelize__encryptAES.xlsx":     {Code: codeEncryptedWorkbook, Reason: "agile AES encryption, an OLE compound file"},
	"openpyxl__null_file.xlsx":      {Code: codeInvalidWorkbook, Reason: "0 bytes"},
	"openpyxl__null_archive.xlsx":   {Code: codeInvalidWorkbook, Reason: "an empty zip: no workbook part"},
	"poi__invalid.xlsx":             {Code: codeInvalidWorkbook, Reason: "an empty zip: no workbook part"},
	"poi__clusterfuzz-testcase-minimized-XLSX2CSVFuzzer-5636439151607808.xlsx": {Code: codeInvalidWorkbook, Reason: "not a readable zip"},
	"tealeg__badfile_noWorkbookRels.xlsx":                                      {Code: codeInvalidWorkbook, Reason: "no xl/_rels/workbook.xml.rels: nothing says where the sheets are"},
	"tealeg__badfile_noWorksheets.xlsx": {Sheets: `["Tabelle1","Tabelle2","Tabelle3"]`,
		First:  `"error invalid_workbook: testdata/corpus/files/tealeg__badfile_noWorksheets.xlsx: missing part xl/worksheets/sheet1.xml"`,
		Reason: "the workbook names three sheets whose parts are missing: listed, each with its error; openpyxl silently lists none"},
	"calamine__minimal_package.xlsx": {Sheets: `["Sheet1"]`, First: `[["ARREST BOOKINGS for 01/30/17"]]`,
		Reason: "a valid minimal package (parts at the root, no sharedStrings); openpyxl fails with IndexError"},
	"sheetjs__xlsx-stream-d-date-cell.xlsx": {Sheets: `["Sheet1"]`, First: `[["String","てすと","\u0026'\";\u003c\u003e","\u0026amp;"]]`,
		Reason: "valid: ISO t=\"d\" cell, no <dimension>; openpyxl fails with IndexError"},
	"calamine__strict_iso_paths.xlsx": {Sheets: `["ml_out"]`,
		First:  `[["Item","Thickness","Number Off Bends","Number Off Fold Tracks","Number Off Bend Downs","Number Off Bend Ups","Minimal Fold Length","Maximal Fold Length","Average Fold Length","FlatSurface Area","FlatBox X","FlatBox Y","PartBox X","PartBox Y","PartBox Z","Weight","Volume","GoldenRun"]]`,
		Reason: "Strict OOXML: openpyxl 3.0.9 finds no sheets"},
	"poi__SimpleStrict.xlsx":                {Sheets: `["Sheet1","Sheet Number 2"]`, First: `[["test","",1]]`, Reason: "Strict OOXML: openpyxl 3.0.9 finds no sheets"},
	"sheetjs__sheet_visibility_strict.xlsx": {Sheets: `["Visible","Hidden","VeryHidden"]`, First: `[["v","i","s","i","b","l","e"]]`, Reason: "Strict OOXML: openpyxl 3.0.9 finds no sheets"},
}

// loadOracle reads oracle/<file>.json, or for an oracle too large to decode
// quickly its digest (see testdata/corpus/digest.py); digest reports which.
func loadOracle(t *testing.T, file string) (oracle map[string]any, digest bool) {
	t.Helper()
	p := filepath.Join(corpusDir, "oracle", file)
	b, err := os.ReadFile(p + ".json")
	if err != nil {
		b, err = os.ReadFile(p + ".digest.json")
		if err != nil {
			t.Fatalf("no oracle for %s: %v", file, err)
		}
		digest = true
	}
	return decodeJSON(t, b), digest
}

func corpusFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "files", "*.xls[xm]"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	return files
}

// allowCorpus makes the corpus folder the allowed root.
func allowCorpus(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join(corpusDir, "files"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(rootsEnv, dir)
	return dir
}

var isoDuration = regexp.MustCompile(`^(-?)PT(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?$`)

// durationSeconds reads our ISO-8601 duration back to seconds.
func durationSeconds(s string) (float64, bool) {
	m := isoDuration.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	h, _ := strconv.ParseFloat("0"+m[2], 64)
	mi, _ := strconv.ParseFloat("0"+m[3], 64)
	se, _ := strconv.ParseFloat("0"+m[4], 64)
	v := h*3600 + mi*60 + se
	if m[1] == "-" {
		v = -v
	}
	return v, true
}

func isFloatText(s string) bool { return strings.ContainsAny(s, ".eE") }

// sameValue compares one of our cells with openpyxl's: null and "" are the
// same empty cell; ints must stay ints and floats floats, with equal
// values; openpyxl's timedelta is compared with our ISO duration in seconds.
func sameValue(ours, theirs any) bool {
	switch th := theirs.(type) {
	case nil:
		return ours == nil || ours == ""
	case map[string]any:
		td, ok := th["timedelta_s"].(json.Number)
		s, ok2 := ours.(string)
		if !ok || !ok2 {
			return false
		}
		want, _ := td.Float64()
		got, ok := durationSeconds(s)
		return ok && math.Abs(got-want) < 1e-6
	case json.Number:
		o, ok := ours.(json.Number)
		if !ok || isFloatText(o.String()) != isFloatText(th.String()) {
			return false
		}
		if !isFloatText(th.String()) {
			return o.String() == th.String()
		}
		a, _ := o.Float64()
		b, _ := th.Float64()
		return a == b
	default:
		return ours == theirs
	}
}

func TestCorpusAgreesWithOpenpyxl(t *testing.T) {
	skipUnderRace(t)
	allowCorpus(t)
	used := make([]bool, len(corpusExceptions))
	matched, byDesign, beyond := 0, 0, 0
	for _, path := range corpusFiles(t) {
		file := filepath.Base(path)

		oracle, digest := loadOracle(t, file)
		if _, listed := corpusBeyond[file]; listed || oracle["ok"] != true {
			beyond++
			checkBeyond(t, path, oracle)
			continue
		}
		diffs := compareFile(t, path, oracle, digest, used)
		if diffs == 0 {
			matched++
		} else {
			byDesign++
		}
	}
	for i, e := range corpusExceptions {
		if !used[i] {
			t.Errorf("exception %s %s!%s no longer occurs: remove it from the table and README.md", e.File, e.Sheet, e.Cell)
		}
	}
	t.Logf("corpus: %d files match openpyxl exactly, %d differ only by the exception table, %d are files openpyxl refuses or sees no sheets in",
		matched, byDesign, beyond)
}

// compareFile checks list-sheets and read-sheet against the oracle and
// returns how many cells differ as the exception table allows.
func compareFile(t *testing.T, path string, oracle map[string]any, digest bool, used []bool) int {
	t.Helper()
	file := filepath.Base(path)
	ls, e := call(t, "list-sheets", map[string]any{"path": path})
	if e != nil {
		t.Errorf("%s: list-sheets: %v", file, e)
		return 0
	}
	ours := ls["sheets"].([]any)
	theirs := oracle["sheets"].([]any)
	if len(ours) != len(theirs) {
		t.Errorf("%s: %d sheets, openpyxl %d", file, len(ours), len(theirs))
		return 0
	}
	allowed := 0
	for i := range theirs {
		o, th := ours[i].(map[string]any), theirs[i].(map[string]any)
		for _, k := range []string{"title", "type", "state"} {
			if o[k] != th[k] {
				t.Errorf("%s sheet %d: %s = %v, openpyxl %v", file, i, k, o[k], th[k])
			}
		}
		if th["type"] != "worksheet" {
			continue
		}
		if jsonString(o["rows"]) != jsonString(th["max_row"]) || jsonString(o["columns"]) != jsonString(th["max_column"]) {
			t.Errorf("%s/%s: rows×columns %v×%v, openpyxl max_row×max_column %v×%v", file, th["title"],
				o["rows"], o["columns"], th["max_row"], th["max_column"])
		}
		if merged, ok := th["merged"].([]any); ok && jsonString(o["merged_ranges"]) != strconv.Itoa(len(merged)) &&
			!(len(merged) == 0 && o["merged_ranges"] == nil) {
			t.Errorf("%s/%s: %v merged ranges, openpyxl %d", file, th["title"], o["merged_ranges"], len(merged))
		}
		title := th["title"].(string)
		if digest {
			compareDigest(t, path, th)
			continue
		}
		// With formulas, to tell computed values (which openpyxl, reading
		// only what the file caches, sees as empty) from stored ones.
		rs, e := call(t, "read-sheet", map[string]any{"path": path, "sheet": title, "skip-empty": false, "max-results": 10_000_000, "formulas": true})
		if e != nil {
			t.Errorf("%s/%s: read-sheet: %v", file, title, e)
			continue
		}
		got := rs["rows"].([]any)
		want := map[int][]any{}
		last := 0
		for _, ir := range th["indexed_rows"].([]any) {
			m := ir.(map[string]any)
			n, _ := strconv.Atoi(m["r"].(json.Number).String())
			want[n] = m["v"].([]any)
			last = max(last, n)
		}
		if len(got) > 0 && len(got[len(got)-1].([]any)) == 0 {
			t.Errorf("%s/%s: read-sheet ends with an empty row", file, title)
		}
		for n := 1; n <= max(len(got), last); n++ {
			var g []any
			if n <= len(got) {
				g = got[n-1].([]any)
			}
			w := want[n]
			for c := 0; c < max(len(g), len(w)); c++ {
				var gv, wv any
				if c < len(g) {
					gv = g[c]
				}
				if c < len(w) {
					wv = w[c]
				}
				if f, ok := gv.(map[string]any); ok {
					if f["computed"] == true && wv == nil {
						// Checked against LibreOffice by the formula
						// package's TestLibreOfficeAgreement.
						continue
					}
					gv = f["value"]
				}
				if sameValue(gv, wv) {
					continue
				}
				cell := workbook.CellName(n, c+1)
				if i := findException(file, title, cell, gv, wv); i >= 0 {
					used[i] = true
					allowed++
					continue
				}
				t.Errorf("%s/%s!%s: ours %s, openpyxl %s", file, title, cell, toJSON(gv), toJSON(wv))
			}
		}
	}
	return allowed
}

func findException(file, sheet, cell string, ours, theirs any) int {
	for i, e := range corpusExceptions {
		if e.File == file && e.Sheet == sheet && e.Cell == cell && e.Ours == toJSON(ours) && e.Openpyxl == toJSON(theirs) {
			return i
		}
	}
	return -1
}

func checkBeyond(t *testing.T, path string, oracle map[string]any) {
	t.Helper()
	file := filepath.Base(path)
	want, ok := corpusBeyond[file]
	ls, e := call(t, "list-sheets", map[string]any{"path": path})
	var first any
	if e == nil {
		if rs, e2 := call(t, "read-sheet", map[string]any{"path": path, "max-results": 1}); e2 == nil {
			first = rs["rows"]
		} else {
			first = "error " + string(e2.Code) + ": " + e2.Message
		}
	}
	if !ok {
		if e != nil {
			t.Errorf("%s (openpyxl: %v): not in corpusBeyond; we answer %s: %s", file, oracle["error"], e.Code, e.Message)
		} else {
			t.Errorf("%s (openpyxl: %v): not in corpusBeyond; we list %s, first sheet %s", file, oracle["error"], toJSON(ls["sheets"]), toJSON(first))
		}
		return
	}
	if want.Code != "" {
		if e == nil || e.Code != want.Code {
			t.Errorf("%s: got %v, want error %s", file, e, want.Code)
		}
		return
	}
	if e != nil {
		t.Errorf("%s: %v, want sheets %s", file, e, want.Sheets)
		return
	}
	var titles []string
	for _, s := range ls["sheets"].([]any) {
		titles = append(titles, s.(map[string]any)["title"].(string))
	}
	if got := toJSON(titles); got != want.Sheets {
		t.Errorf("%s: sheets %s, want %s", file, got, want.Sheets)
	}
	if got := toJSON(first); got != want.First {
		t.Errorf("%s: first sheet rows %s, want %s", file, got, want.First)
	}
}

// compareDigest checks a sheet against the oracle's block digests: the
// same canonical form of every kept row, hashed 256 rows at a time.
func compareDigest(t *testing.T, path string, th map[string]any) {
	t.Helper()
	file, title := filepath.Base(path), th["title"].(string)
	// The reader's values, canonicalised without a JSON round trip (the
	// JSON encoding of values is checked on every other file and by
	// TestAppendJSONMatchesEncodingJSON).
	w, err := workbook.Open(path, nil)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	defer w.Close()
	sh, ok := w.Sheet(title)
	if !ok {
		t.Fatalf("%s: no sheet %s", file, title)
	}
	var kept []string
	_, err = w.Stream(context.Background(), sh, nil, func(r workbook.Row) error {
		cells := make([]string, len(r.Cells))
		for j, v := range r.Cells {
			cells[j] = digestCell(v)
		}
		kept = append(kept, strconv.Itoa(r.Num)+"\x1e"+strings.Join(cells, "\x1f"))
		return nil
	})
	if err != nil {
		t.Fatalf("%s/%s: %v", file, title, err)
	}
	if want := jsonString(th["kept_rows"]); strconv.Itoa(len(kept)) != want {
		t.Errorf("%s/%s: %d non-empty rows, openpyxl %s", file, title, len(kept), want)
	}
	for _, bl := range th["blocks"].([]any) {
		b := bl.(map[string]any)
		n, _ := strconv.Atoi(jsonString(b["n"]))
		first, _ := strconv.Atoi(jsonString(b["first"]))
		if len(kept) < n {
			t.Errorf("%s/%s: rows from %d missing", file, title, first)
			return
		}
		sum := sha256.Sum256([]byte(strings.Join(kept[:n], "\x1d")))
		if got := hex.EncodeToString(sum[:]); got != b["sha256"] {
			t.Errorf("%s/%s: rows %v..%v differ from openpyxl's (digest %s, want %s); decode oracle/%s.json.gz to see which cells",
				file, title, b["first"], b["last"], got[:12], jsonString(b["sha256"])[:12], file)
		}
		kept = kept[n:]
	}
}

// digestCell is digest.py's canonical form of one of our cell values.
func digestCell(v workbook.Value) string {
	switch v.Kind {
	case workbook.KindEmpty:
		return "n"
	case workbook.KindBool:
		if v.Bool {
			return "b1"
		}
		return "b0"
	case workbook.KindInt:
		return "i" + strconv.FormatInt(v.Int, 10)
	case workbook.KindFloat:
		b, _ := workbook.Float(v.Num).MarshalJSON()
		return "f" + string(b)
	case workbook.KindString:
		if v.Str == "" {
			return "n"
		}
		return "s" + v.Str
	default:
		return "?" + v.Kind.String() + ":" + v.Str
	}
}

// skipUnderRace skips a test that reads a whole corpus in a -race build;
// make test and make check run it without -race (the Makefile's
// XLSX_EVAL), so the comparison with the oracles is checked on every run.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("reads a whole corpus: run without -race (make test does)")
	}
}
