package workbook

import (
	"context"
	"testing"
)

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
