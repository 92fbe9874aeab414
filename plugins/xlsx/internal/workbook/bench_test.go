package workbook

import (
	"context"
	"strings"
	"testing"
)

// BenchmarkStream reads a stored 20,000-row sheet (a number, an inline
// string and a date per row); bench.sh compares the whole plugin with
// openpyxl on a deflated 200,000 × 10 workbook.
func BenchmarkStream(b *testing.B) {
	p := writeRows(b, 20_000)
	b.ReportAllocs()
	for b.Loop() {
		w, err := Open(p, nil)
		if err != nil {
			b.Fatal(err)
		}
		cells := 0
		if _, err := w.Stream(context.Background(), &w.Sheets[0], nil, func(r Row) error {
			cells += len(r.Cells)
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		w.Close()
		if cells != 60_000 {
			b.Fatalf("%d cells, want 60000", cells)
		}
	}
}

// BenchmarkAppendJSONString escapes the long plain text of the long-strings
// sheet's cells (a few hundred bytes, nothing to escape), where read-sheet
// spends a fifth of its time.
func BenchmarkAppendJSONString(b *testing.B) {
	s := strings.Repeat("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 3) + "aaaaa"
	b.SetBytes(int64(len(s)))
	var dst []byte
	for b.Loop() {
		dst = AppendJSONString(dst[:0], s)
	}
}
