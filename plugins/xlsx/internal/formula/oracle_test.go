package formula

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

var recordOracle = flag.Bool("oracle", false, "recalculate the corpora with LibreOffice (soffice) and rewrite testdata/formulas/oracle before comparing")

// The corpora whose every formula is computed and compared with
// LibreOffice's answer: the plugin's openpyxl corpus (its files named
// SOURCE__NAME), the formula test files of xlcalculator and IronCalc, and
// the workbooks generate.py writes for each function computed here.
var corpora = []string{"../../testdata/corpus/files", "../../testdata/formulas/files"}

const oracleDir = "../../testdata/formulas/oracle"

// oracleValue is one formula cell's value as LibreOffice computed it:
// exactly one field set.
type oracleValue struct {
	N *float64 `json:"n,omitempty"`
	S *string  `json:"s,omitempty"`
	B *bool    `json:"b,omitempty"`
	E string   `json:"e,omitempty"`
	// H is the SHA-256 of a text longer than 200 bytes.
	H string `json:"sha256,omitempty"`
}

func (o oracleValue) String() string {
	switch {
	case o.N != nil:
		return fmt.Sprint(*o.N)
	case o.S != nil:
		return fmt.Sprintf("%q", *o.S)
	case o.B != nil:
		return fmt.Sprint(*o.B)
	}
	return o.E
}

func oracleOf(v workbook.Value) oracleValue {
	switch v.Kind {
	case workbook.KindInt, workbook.KindFloat:
		f := v.Float64()
		return oracleValue{N: &f}
	case workbook.KindBool:
		b := v.Bool
		return oracleValue{B: &b}
	case workbook.KindError:
		return oracleValue{E: v.Str}
	case workbook.KindEmpty:
		f := 0.0
		return oracleValue{N: &f}
	}
	s := v.Str
	return oracleValue{S: &s}
}

// agrees compares a computed value with the oracle's: numbers to 1e-9
// relative (1e-15 absolute near zero), everything else exactly.
func agrees(got workbook.Value, want oracleValue) bool {
	g := oracleOf(got)
	// LibreOffice has no boolean type: its TRUE is 1 in a boolean format,
	// written as a number or a boolean by that format.
	if g.B != nil && want.N != nil {
		return *want.N == map[bool]float64{true: 1}[*g.B]
	}
	if g.N != nil && want.B != nil {
		return *g.N == map[bool]float64{true: 1}[*want.B]
	}
	switch {
	case want.N != nil:
		if g.N == nil {
			return false
		}
		a, b := *g.N, *want.N
		return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)) || math.Abs(a-b) < 1e-15
	case want.S != nil:
		return g.S != nil && *g.S == *want.S
	case want.B != nil:
		return g.B != nil && *g.B == *want.B
	case want.H != "":
		if g.S == nil {
			return false
		}
		sum := sha256.Sum256([]byte(*g.S))
		return hex.EncodeToString(sum[:]) == want.H
	}
	return g.E == want.E
}

type formulaCell struct {
	sheet    string
	row, col int
	text     string
	cached   workbook.Value // the value the file stores, empty when none
}

func (c formulaCell) key() string { return c.sheet + "!" + workbook.CellName(c.row, c.col) }

// formulaCells lists a workbook's formula cells, sheet by sheet.
func formulaCells(t *testing.T, w *workbook.Workbook) []formulaCell {
	t.Helper()
	var out []formulaCell
	for i := range w.Sheets {
		sh := &w.Sheets[i]
		if sh.Type != "worksheet" {
			continue
		}
		_, err := w.Stream(context.Background(), sh, &workbook.StreamOptions{Formulas: true, Serials: true}, func(r workbook.Row) error {
			for j, f := range r.Formulas {
				if f != "" {
					c := formulaCell{sheet: sh.Name, row: r.Num, col: j + 1, text: f}
					if j < len(r.Cells) {
						c.cached = r.Cells[j].Owned()
					}
					out = append(out, c)
				}
			}
			return nil
		})
		if err != nil {
			return out
		}
	}
	return out
}

func corpusFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range corpora {
		for _, ext := range []string{"*.xlsx", "*.xlsm"} {
			m, err := filepath.Glob(filepath.Join(dir, ext))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, m...)
		}
	}
	sort.Strings(files)
	return files
}

// source is the corpus a file belongs to, for the table: the part of its
// name before "__".
func source(path string) string {
	base := filepath.Base(path)
	src, _, ok := strings.Cut(base, "__")
	if !ok {
		return "other"
	}
	if strings.Contains(path, "testdata/corpus/") {
		return "xlsx corpus"
	}
	return src
}

// known are the cells where the computed value differs from
// LibreOffice's on purpose, with the reason (testdata/formulas/differences.tsv).
func known(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("../../testdata/formulas/differences.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 {
			t.Fatalf("differences.tsv: %q: want file, cell and reason, tab-separated", line)
		}
		out[parts[0]+" "+parts[1]] = parts[2]
	}
	return out
}

// oracleJSON writes one cell a line, in a stable order, for readable diffs.
func oracleJSON(cells map[string]oracleValue) []byte {
	keys := make([]string, 0, len(cells))
	for k := range cells {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",")
		}
		kj, _ := json.Marshal(k)
		vj, _ := json.Marshal(cells[k])
		b.WriteString("\n")
		b.Write(kj)
		b.WriteString(": ")
		b.Write(vj)
	}
	b.WriteString("\n}")
	return []byte(b.String())
}

func recordWithLibreOffice(t *testing.T, files []string) {
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		t.Fatal("-oracle needs LibreOffice: install Debian's libreoffice-calc-nogui (scripts/debian-packages-bench-xlsx.txt)")
	}
	tmp := t.TempDir()
	profile := filepath.Join(tmp, "profile")
	// Recalculate every formula on load, whatever the file caches.
	xcu := `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>`
	if err := os.MkdirAll(filepath.Join(profile, "user"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(profile, "user", "registrymodifications.xcu"), []byte(xcu), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "out")
	in := filepath.Join(tmp, "in")
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	var inputs []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(in, filepath.Base(f))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, p)
	}
	// One soffice per 50 files: its start is most of its time.
	for i := 0; i < len(inputs); i += 50 {
		args := []string{"-env:UserInstallation=file://" + profile, "--headless", "--convert-to", "xlsx", "--outdir", out}
		args = append(args, inputs[i:min(i+50, len(inputs))]...)
		if msg, err := exec.Command(soffice, args...).CombinedOutput(); err != nil {
			t.Logf("soffice: %v: %s", err, msg)
		}
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		conv := filepath.Join(out, name+".xlsx")
		cells := map[string]oracleValue{}
		if w, err := workbook.Open(conv, nil); err == nil {
			for i := range w.Sheets {
				sh := &w.Sheets[i]
				w.Stream(context.Background(), sh, &workbook.StreamOptions{Formulas: true, Serials: true}, func(r workbook.Row) error {
					for j, fm := range r.Formulas {
						if fm == "" {
							continue
						}
						// LibreOffice writes a value for every formula;
						// an empty one is the empty string.
						v := workbook.Value{Kind: workbook.KindString}
						if j < len(r.Cells) && !r.Cells[j].IsEmpty() {
							v = r.Cells[j].Owned()
						}
						o := oracleOf(v)
						if o.S != nil && len(*o.S) > 200 {
							sum := sha256.Sum256([]byte(*o.S))
							o = oracleValue{H: hex.EncodeToString(sum[:])}
						}
						cells[sh.Name+"!"+workbook.CellName(r.Num, j+1)] = o
					}
					return nil
				})
			}
			w.Close()
		}
		os.Remove(conv)
		data := oracleJSON(cells)
		if err := os.WriteFile(filepath.Join(oracleDir, filepath.Base(f)+".json"), append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLibreOfficeAgreement computes every formula of the corpora, ignoring
// the values cached in the files, and compares each with LibreOffice's
// answer (testdata/formulas/oracle, recorded with -oracle). It prints
// coverage (formula cells computed) and agreement (computed cells equal to
// LibreOffice's) per corpus, and fails on a disagreement not listed in
// differences.tsv, or a listed one that now agrees.
func TestLibreOfficeAgreement(t *testing.T) {
	if raceDetector {
		t.Skip("run without -race: make test runs it on its own")
	}
	files := corpusFiles(t)
	if *recordOracle {
		recordWithLibreOffice(t, files)
	}
	diffs := known(t)
	type tally struct{ files, cells, oracle, computed, agree, excel, listed int }
	tallies := map[string]*tally{}
	reasons := map[string]int{}
	seenListed := map[string]bool{}
	for _, f := range files {
		base := filepath.Base(f)
		data, err := os.ReadFile(filepath.Join(oracleDir, base+".json"))
		if err != nil {
			t.Fatalf("%s: no oracle answer (run go test -run TestLibreOfficeAgreement -oracle): %v", base, err)
		}
		var want map[string]oracleValue
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		w, err := workbook.Open(f, nil)
		if err != nil {
			continue
		}
		ty := tallies[source(f)]
		if ty == nil {
			ty = &tally{}
			tallies[source(f)] = ty
		}
		ty.files++
		b := New(context.Background(), w)
		b.Recalculate = true
		for _, c := range formulaCells(t, w) {
			ty.cells++
			wv, ok := want[c.key()]
			if !ok {
				continue // LibreOffice could not read the file, or dropped the formula
			}
			ty.oracle++
			got, err := b.Compute(c.sheet, c.row, c.col, c.text)
			var u *Unsupported
			if errors.As(err, &u) {
				reasons[reasonClass(u.Reason)]++
				continue
			}
			if err != nil {
				t.Errorf("%s %s: %v", base, c.key(), err)
				continue
			}
			ty.computed++
			id := base + " " + c.key()
			if agrees(got, wv) {
				ty.agree++
				if _, listed := diffs[id]; listed {
					t.Errorf("%s %s (%s): listed in differences.tsv but agrees with LibreOffice now: remove the line", base, c.key(), c.text)
				}
				continue
			}
			if !c.cached.IsEmpty() && agrees(got, oracleOf(c.cached)) {
				// LibreOffice differs from the value the file's writer
				// (Excel, for these corpora) computed, and we agree with it.
				ty.excel++
				continue
			}
			if _, listed := diffs[id]; listed {
				ty.listed++
				seenListed[id] = true
				continue
			}
			if _, listed := diffs[base+" *"]; listed {
				ty.listed++
				seenListed[base+" *"] = true
				continue
			}
			t.Errorf("%s %s %s: computed %s, LibreOffice %s", base, c.key(), c.text, oracleOf(got), wv)
		}
		w.Close()
	}
	for id := range diffs {
		if !seenListed[id] {
			t.Errorf("differences.tsv lists %s, which is not a computed disagreement any more: remove the line", id)
		}
	}
	var names []string
	for k := range tallies {
		names = append(names, k)
	}
	sort.Strings(names)
	var total tally
	t.Logf("%-14s %6s %8s %8s %9s %8s %8s %8s %6s", "corpus", "files", "formulas", "oracle", "computed", "coverage", "agree", "as-cached", "listed")
	row := func(name string, ty tally) {
		cov, agr := 0.0, 0.0
		if ty.oracle > 0 {
			cov = 100 * float64(ty.computed) / float64(ty.oracle)
		}
		if ty.computed > 0 {
			agr = 100 * float64(ty.agree) / float64(ty.computed)
		}
		t.Logf("%-14s %6d %8d %8d %9d %7.1f%% %7.2f%% %8d %6d", name, ty.files, ty.cells, ty.oracle, ty.computed, cov, agr, ty.excel, ty.listed)
	}
	for _, n := range names {
		ty := *tallies[n]
		row(n, ty)
		total.files += ty.files
		total.cells += ty.cells
		total.oracle += ty.oracle
		total.computed += ty.computed
		total.agree += ty.agree
		total.listed += ty.listed
		total.excel += ty.excel
	}
	row("all", total)
	type rc struct {
		r string
		n int
	}
	var rs []rc
	for r, n := range reasons {
		rs = append(rs, rc{r, n})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].n > rs[j].n || rs[i].n == rs[j].n && rs[i].r < rs[j].r })
	for i, r := range rs {
		if i == 25 {
			break
		}
		t.Logf("not computed: %6d  %s", r.n, r.r)
	}
}

// reasonClass groups reasons by what they say, without the cell that
// varies: "uses the function X…".
func reasonClass(r string) string {
	if i := strings.Index(r, ", which"); i > 0 && strings.HasPrefix(r, "uses the function") {
		return r[:i]
	}
	if strings.HasPrefix(r, "uses the range") {
		return "uses a range where one value is expected"
	}
	if strings.HasPrefix(r, "is part of a circular") {
		return "circular reference"
	}
	if strings.HasPrefix(r, "uses the defined name") {
		return "uses a defined name"
	}
	return r
}

// TestEveryFunctionHasAGeneratedWorkbook keeps generate.py's cases and the
// functions computed here in step, so each function meets the oracle.
func TestEveryFunctionHasAGeneratedWorkbook(t *testing.T) {
	for _, name := range Functions() {
		p := filepath.Join("../../testdata/formulas/files", "generated__"+name+".xlsx")
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s is computed but has no generated workbook (%s): add its cases to testdata/formulas/generate.py", name, p)
		}
	}
}
