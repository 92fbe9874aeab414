package workbook

import (
	"math"
	"testing"
)

// With Borrow, the dates, times and durations a binary format's rows
// hold read as SerialValue gives them, every cell of a row at once (their
// text shares a buffer that grows within the row and is reused by the
// next).
func TestSerialBorrowedAsSerialValue(t *testing.T) {
	serials := []float64{45291.5, 0.25, 1.5, 59, 61, 45000, 2958466, math.NaN(), 36526.000011574074, 0}
	for _, borrow := range []bool{false, true} {
		var st Stats
		var g *Gatherer
		rows := 0
		g = NewGatherer(&st, StreamOptions{Borrow: borrow}, func(r Row) error {
			rows++
			for c, v := range r.Cells {
				want := SerialValue(serials[c], false, c == 2)
				if v != want {
					t.Errorf("borrow %v, row %d, serial %v: got %+v, want %+v", borrow, r.Num, serials[c], v, want)
				}
			}
			return nil
		})
		for r := range 3 {
			for c, x := range serials {
				if err := g.Set(r, c, g.Serial(x, false, c == 2), false); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := g.Flush(); err != nil {
			t.Fatal(err)
		}
		if rows != 3 {
			t.Fatalf("borrow %v: got %d rows, want 3", borrow, rows)
		}
	}
}
