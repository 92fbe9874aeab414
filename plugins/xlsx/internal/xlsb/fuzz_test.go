package xlsb

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/ptg"
	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

// FuzzSheetRecords feeds arbitrary bytes to the sheet reader as a sheet
// part: it may refuse them, never panic, and every row it yields is
// trimmed and in the grid. The seeds are the sheets of the corpus.
func FuzzSheetRecords(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(filesDir, "*.xlsb"))
	for _, p := range files {
		zr, err := zip.OpenReader(p)
		if err != nil {
			continue // the encrypted one is a compound file
		}
		for _, zf := range zr.File {
			if !strings.HasPrefix(zf.Name, "xl/worksheets/sheet") || zf.UncompressedSize64 > 64<<10 {
				continue
			}
			rc, err := zf.Open()
			if err != nil {
				f.Fatal(err)
			}
			b, _ := io.ReadAll(rc)
			rc.Close()
			f.Add(b)
		}
		zr.Close()
	}
	b := &book{sst: []string{"shared"}, sstRead: true, xfs: []xfInfo{{}, {date: true}, {date: true, elapsed: true}}, maxMem: 1 << 20, names: ptg.Names{BIFF12: true}}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Values, formulas as text (their tokens decompiled), extent only.
		for _, o := range []workbook.StreamOptions{{}, {Formulas: true}, {StatsOnly: true}} {
			statsOnly := o.StatsOnly
			st := workbook.Stats{MaxRow: 1, MaxColumn: 1}
			rr := &recordReader{r: bufio.NewReader(bytes.NewReader(data)), part: "fuzz.bin"}
			p := sheetReader{b: b, rr: rr, st: &st, o: o, next: -1, text: o.Formulas,
				g: workbook.NewGatherer(&st, o, func(r workbook.Row) error {
					if r.Num < 1 || r.Num > workbook.MaxRows || len(r.Cells) > workbook.MaxColumns {
						t.Fatalf("row %d with %d cells is outside the grid", r.Num, len(r.Cells))
					}
					if n := len(r.Cells); !statsOnly && (n == 0 || r.Cells[n-1].IsEmpty()) {
						t.Fatalf("row %d is not trimmed: %v", r.Num, r.Cells)
					}
					return nil
				})}
			p.f = ptg.Sheet{Names: &b.names, Emit: p.g.Formula, Budget: maxSharedBytes}
			_ = p.run(context.Background())
			if st.MaxRow > workbook.MaxRows || st.MaxColumn > workbook.MaxColumns {
				t.Fatalf("extent %d x %d is outside the grid", st.MaxRow, st.MaxColumn)
			}
		}
	})
}
