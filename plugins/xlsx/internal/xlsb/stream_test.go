package xlsb

import (
	"context"
	"encoding/binary"
	"math"
	"runtime"
	"testing"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

// numberSheet is a sheet part of rows × 10 number cells.
func numberSheet(rows int) []byte {
	b := rec(recBeginSheetData, nil)
	for r := 0; r < rows; r++ {
		b = append(b, rec(recRowHdr, le32(uint32(r), 0, 0))...)
		for c := 0; c < 10; c++ {
			body := binary.LittleEndian.AppendUint64(le32(uint32(c), 0), math.Float64bits(float64(r)+0.5))
			b = append(b, rec(recCellReal, body)...)
		}
	}
	return append(b, rec(recEndSheetData, nil)...)
}

// TestStreamingHoldsOneRow reads sheets of 1,000 and 10,000 rows: the
// memory live at the last row, over that at the first, does not grow
// with the rows read between, nothing of a row being kept past it.
func TestStreamingHoldsOneRow(t *testing.T) {
	live := map[int]int64{}
	for _, rows := range []int{1_000, 10_000} {
		w, err := rezip(t, base, nil, map[string][]byte{"xl/worksheets/sheet1.bin": numberSheet(rows)})
		if err != nil {
			t.Fatal(err)
		}
		var ms runtime.MemStats
		var before int64
		seen := 0
		_, err = w.Stream(context.Background(), &w.Sheets[0], nil, func(r workbook.Row) error {
			seen++
			if seen == 1 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				before = int64(ms.HeapAlloc)
			}
			if seen == rows {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				live[rows] = int64(ms.HeapAlloc) - before
			}
			return nil
		})
		w.Close()
		if err != nil || seen != rows {
			t.Fatalf("%d rows read of %d: %v", seen, rows, err)
		}
	}
	if live[10_000] > live[1_000]+1<<20 {
		t.Errorf("live memory grows with the rows: %d bytes at the last of 1,000 rows, %d at the last of 10,000", live[1_000], live[10_000])
	}
}
