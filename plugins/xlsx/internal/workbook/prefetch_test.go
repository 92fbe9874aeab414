package workbook

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// TestEarlyStopEndsThePrefetcher reads one row of a 57 MB deflated sheet
// and checks the inflating goroutine is gone once Stream returns.
func TestEarlyStopEndsThePrefetcher(t *testing.T) {
	before := runtime.NumGoroutine()
	w, err := Open("../../testdata/corpus/files/sheetjs__large_strings.xlsx", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	sh, _ := w.Sheet("Large Strings")
	rows := 0
	st, err := w.Stream(context.Background(), sh, nil, func(Row) error {
		rows++
		return ErrStop
	})
	if err != nil || rows != 1 || st.Complete {
		t.Fatalf("rows %d, complete %v, err %v", rows, st.Complete, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the stream, %d before", n, before)
	}
}

func TestCancelledContextStopsTheStream(t *testing.T) {
	w, err := Open("../../testdata/corpus/files/sheetjs__large_strings.xlsx", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	sh, _ := w.Sheet("Large Strings")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.Stream(ctx, sh, nil, func(Row) error { return nil }); err == nil {
		t.Error("a cancelled stream returned no error")
	}
}
