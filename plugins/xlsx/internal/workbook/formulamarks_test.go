package workbook

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// TestFormulaMarksWhereFormulas: describe counts formula cells with
// FormulaMarks, which skips their text; every mark must sit exactly where
// Formulas puts a formula's text, in the same rows, on every workbook of
// the corpus (other writers' files, shared formulas among them) and the
// crafted ones (formula_master_missing.xlsx: a shared formula whose master
// is missing is no formula).
func TestFormulaMarksWhereFormulas(t *testing.T) {
	skipUnderRace(t)
	var books []string
	for _, dir := range []string{"../../testdata/corpus/files", "../../testdata/crafted"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.xls[xm]"))
		if err != nil {
			t.Fatal(err)
		}
		books = append(books, m...)
	}
	formulas := 0
	for _, p := range books {
		w, err := Open(p, nil)
		if err != nil {
			continue // refused files are other tests' business
		}
		for i := range w.Sheets {
			text := readFormulas(t, w, &w.Sheets[i], false)
			marks := readFormulas(t, w, &w.Sheets[i], true)
			if len(text) != len(marks) {
				t.Errorf("%s %s: %d rows with formula text, %d with marks", filepath.Base(p), w.Sheets[i].Name, len(text), len(marks))
				continue
			}
			for r := range text {
				for c := range max(len(text[r]), len(marks[r])) {
					tf, mf := at(text[r], c), at(marks[r], c)
					if (tf != "") != (mf != "") || mf != "" && mf != "=" {
						t.Errorf("%s %s row %d column %d: formula %q, mark %q", filepath.Base(p), w.Sheets[i].Name, r, c+1, tf, mf)
					}
					if tf != "" {
						formulas++
					}
				}
			}
		}
		w.Close()
	}
	t.Logf("%d formula cells", formulas)
	if formulas < 100 {
		t.Errorf("only %d formula cells compared: the corpus should hold more", formulas)
	}
}

// readFormulas streams sh with formulas (as marks or as text) and returns
// each row's Formulas, keyed by the row's position among the rows.
func readFormulas(t *testing.T, w *Workbook, sh *Sheet, marks bool) [][]string {
	t.Helper()
	var rows [][]string
	_, err := w.Stream(context.Background(), sh, &StreamOptions{Formulas: true, FormulaMarks: marks}, func(r Row) error {
		rows = append(rows, append([]string{}, r.Formulas...))
		return nil
	})
	var we *Error
	if err != nil && !errors.As(err, &we) {
		t.Fatalf("%s: %v", sh.Name, err)
	}
	return rows
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

// skipUnderRace skips a test that reads every corpus file, or a large
// sheet, in a -race build; make test and make check run it without -race
// (the Makefile's XLSX_EVAL).
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("reads every corpus file: run without -race (make test does)")
	}
}
