package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

// formulaTwins are the other formats the .xls and .xlsb corpora's
// workbooks also come in, written by the same program (Excel, for
// SheetJS's files), whose formulas are stored as text: the oracle of the
// formula text decompiled from their tokens.
var formulaTwins = []struct{ dir, ext string }{
	{"testdata/corpus/files", ".xlsx"},
	{filepath.Join(formatsDir, "ods", "files"), ".ods"},
}

// formulaTextDiffers are .xls and .xlsb formula cells whose text differs
// from their twin's, each with its reason, by file, sheet and cell.
var formulaTextDiffers = map[string]string{
	"sheetjs__formula_stress_test.xls/Statistical!B2":  "Excel's BETA.DIST(x,α,β,cumulative) is OpenFormula's BETADIST(x,α,β,0,1,cumulative): the .ods twin adds the bounds",
	"sheetjs__formula_stress_test.xlsb/Statistical!B2": "Excel's BETA.DIST(x,α,β,cumulative) is OpenFormula's BETADIST(x,α,β,0,1,cumulative): the .ods twin adds the bounds",
}

// TestBinaryFormulaTextAgreesWithTwins decompiles every formula of the
// .xls and .xlsb corpus files that also come as .xlsx or .ods and compares
// each text with the twin's, ignoring spaces: every formula must have the
// twin's text or no text with its reason (a token not decompiled), never
// another text.
func TestBinaryFormulaTextAgreesWithTwins(t *testing.T) {
	skipUnderRace(t)
	for _, format := range []string{"xls", "xlsb"} {
		t.Run(format, func(t *testing.T) { binaryFormulaTextAgrees(t, format) })
	}
}

func binaryFormulaTextAgrees(t *testing.T, format string) {
	dir, err := filepath.Abs(filepath.Join(formatsDir, format, "files"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(rootsEnv, "/")
	files, _ := filepath.Glob(filepath.Join(dir, "*."+format))
	var pairs, compared, equal, renamed, noText, listed int
	reasons := map[string]int{}
	for _, path := range files {
		if w, err := openWorkbook(path); err != nil {
			continue // refused: formats_corpus_test.go checks why
		} else {
			w.Close()
		}
		base := strings.TrimSuffix(filepath.Base(path), "."+format)
		for _, tw := range formulaTwins {
			twin, err := filepath.Abs(filepath.Join(tw.dir, base+tw.ext))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(twin); err != nil {
				continue
			}
			pairs++
			ours, theirs := formulaTexts(t, path), formulaTexts(t, twin)
			keys := make([]string, 0, len(ours))
			for k := range ours {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				want, ok := theirs[k]
				if !ok {
					continue
				}
				compared++
				got := ours[k]
				if reason, none := workbook.FormulaReason(got); none {
					noText++
					reasons[reason]++
					continue
				}
				if squeeze(got) == squeeze(want) {
					equal++
					continue
				}
				if tw.ext == ".ods" && squeeze(functionNamesOut(got)) == squeeze(functionNamesOut(want)) {
					renamed++
					continue
				}
				id := filepath.Base(path) + "/" + k
				if _, ok := formulaTextDiffers[id]; ok {
					listed++
					continue
				}
				t.Errorf("%s: ours %q, the %s twin %q", id, got, tw.ext, want)
			}
		}
	}
	if compared == 0 {
		t.Fatal("no formula compared")
	}
	// Over the whole corpus: how many formulas have text.
	var cells, withText int
	corpusReasons := map[string]int{}
	for _, path := range files {
		w, err := openWorkbook(path)
		if err != nil {
			continue // refused: formats_corpus_test.go checks why
		}
		w.Close()
		for _, f := range formulaTexts(t, path) {
			cells++
			if reason, none := workbook.FormulaReason(f); none {
				corpusReasons[reason]++
			} else {
				withText++
			}
		}
	}
	t.Logf(".%s corpus: %d formula cells, %d with text", format, cells, withText)
	for r, k := range corpusReasons {
		t.Logf("  %d without text: %s", k, r)
	}
	t.Logf(".%s formula text: %d pairs of a file and its .xlsx or .ods twin, %d formulas compared, %d equal, %d equal but for function names the .ods names otherwise (COM.MICROSOFT.T.DIST for _xlfn.T.DIST, LEGACY.CHIDIST for CHIDIST), %d without text (reason given), %d listed differences",
		format, pairs, compared, equal, renamed, noText, listed)
	for r, k := range reasons {
		t.Logf("  %d without text: %s", k, r)
	}
}

// functionNamesOut replaces each function name (a name before "(",
// outside strings) by F.
func functionNamesOut(f string) string {
	var b strings.Builder
	in := false
	name := -1
	for i := 0; i < len(f); i++ {
		c := f[i]
		switch {
		case c == '"':
			in = !in
		case !in && (c == '_' || c == '.' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9' && name >= 0)):
			if name < 0 {
				name = b.Len()
			}
		case !in && c == '(' && name >= 0:
			s := b.String()[:name]
			b.Reset()
			b.WriteString(s + "F")
			name = -1
		default:
			name = -1
		}
		b.WriteByte(c)
	}
	return b.String()
}

// squeeze drops the spaces outside strings: Excel keeps a formula's
// spaces as written in .xlsx and as tokens in .xls.
func squeeze(f string) string {
	var b strings.Builder
	in := false
	for _, r := range f {
		if r == '"' {
			in = !in
		}
		if r == ' ' && !in {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// formulaTexts reads every formula of a workbook's worksheets through the
// plugin's reader, by "sheet!cell".
func formulaTexts(t *testing.T, path string) map[string]string {
	t.Helper()
	w, err := openWorkbook(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer w.Close()
	out := map[string]string{}
	for i := range w.Sheets {
		sh := &w.Sheets[i]
		if sh.Type != "worksheet" {
			continue
		}
		_, err = w.Stream(t.Context(), sh, &workbook.StreamOptions{Formulas: true}, func(r workbook.Row) error {
			for c, f := range r.Formulas {
				if f != "" {
					out[sh.Name+"!"+workbook.CellName(r.Num, c+1)] = f
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("%s/%s: %v", path, sh.Name, err)
		}
	}
	return out
}
