package workbook

import (
	"archive/zip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFormulaMarksWhereFormulas: describe counts formula cells with
// FormulaMarks, which skips their text; every mark must sit exactly where
// Formulas puts a formula's text, in the same rows, on every workbook of
// the corpus (other writers' files, shared formulas among them) and the
// crafted ones, including a shared formula whose master is missing.
func TestFormulaMarksWhereFormulas(t *testing.T) {
	var books []string
	for _, dir := range []string{"../../testdata/corpus/files", "../../testdata/crafted"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.xls[xm]"))
		if err != nil {
			t.Fatal(err)
		}
		books = append(books, m...)
	}
	books = append(books, craftedSheet(t, `<row r="1"><c r="A1"><f t="shared" si="7"/><v>1</v></c>`+
		`<c r="B1"><f t="shared" ref="B1:B2" si="0">A1+1</f><v>2</v></c><c r="C1"><f></f><v>3</v></c></row>`+
		`<row r="2"><c r="B2"><f t="shared" si="0"/></c><c r="C2"><f>1+1</f></c></row>`))
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

// craftedSheet writes a one-sheet workbook whose sheetData holds rows.
func craftedSheet(t *testing.T, rows string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "shared.xlsx")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	for _, part := range [][2]string{
		{"xl/workbook.xml", `<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" r:id="rId1"/></sheets></workbook>`},
		{"xl/_rels/workbook.xml.rels", `<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`},
		{"xl/worksheets/sheet1.xml", `<worksheet><sheetData>` + rows + `</sheetData></worksheet>`},
	} {
		w, err := zw.Create(part[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(part[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}
