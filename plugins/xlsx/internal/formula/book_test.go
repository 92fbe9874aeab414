package formula

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

// engine.xlsx (written by openpyxl, so no formula has a cached value):
// Sheet1!A1 = 1, A2 = 2, formulas below; Other!B2 = 5; 'My Sheet'!A1 = "x";
// B1 a date (29 February 2024).
const engineBook = "../../testdata/formulas/engine.xlsx"

func openEngine(t *testing.T) (*workbook.Workbook, map[string]string) {
	t.Helper()
	w, err := workbook.Open(engineBook, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	formulas := map[string]string{}
	for _, c := range formulaCells(t, w) {
		formulas[c.key()] = c.text
	}
	return w, formulas
}

func TestComputeReferencesAndReasons(t *testing.T) {
	w, formulas := openEngine(t)
	tests := []struct {
		cell   string
		want   string // the value as JSON, when computed
		reason string // a part of the reason, when not
	}{
		{cell: "A3", want: "3"},
		{cell: "A4", want: "6"}, // through A3, itself computed
		{cell: "A5", reason: "circular reference"},
		{cell: "A7", want: "50"},      // another sheet
		{cell: "A8", want: `"x"`},     // a quoted sheet name
		{cell: "A9", want: `"#REF!"`}, // a sheet the workbook lacks
		{cell: "A10", reason: "defined name Rate"},
		{cell: "A11", reason: "NOW, whose value changes"},
		{cell: "A12", reason: "function FOO"},
		{cell: "A13", want: "4"}, // IF's branch not taken is not computed
		{cell: "A14", reason: "where one value is expected"},
		{cell: "A15", want: "43861.5"},
		{cell: "B2", want: "45352"}, // a date cell's serial, plus one
		{cell: "B3", want: "2024"},
	}
	for _, tt := range tests {
		t.Run(tt.cell, func(t *testing.T) {
			b := New(context.Background(), w)
			text, ok := formulas["Sheet1!"+tt.cell]
			if !ok {
				t.Fatalf("no formula in Sheet1!%s", tt.cell)
			}
			row, col, _ := workbook.ParseRef(tt.cell)
			got, err := b.Compute("Sheet1", row, col, text)
			var u *Unsupported
			switch {
			case tt.reason != "":
				if !errors.As(err, &u) || !strings.Contains(u.Reason, tt.reason) {
					t.Fatalf("%s: got %v, %v; want a reason containing %q", text, got.JSON(), err, tt.reason)
				}
			case err != nil:
				t.Fatalf("%s: %v", text, err)
			default:
				if s := string(must(got.AppendJSON(nil, "null"))); s != tt.want {
					t.Fatalf("%s = %s, want %s", text, s, tt.want)
				}
			}
		})
	}
}

func must(b []byte) []byte { return b }

// TestComputeHoldsAtMostMaxCells: a formula whose references need more
// cells than the budget allows is not computed, and says why.
func TestComputeHoldsAtMostMaxCells(t *testing.T) {
	w, formulas := openEngine(t)
	b := New(context.Background(), w)
	b.MaxCells = 3
	_, err := b.Compute("Sheet1", 3, 1, formulas["Sheet1!A3"])
	var u *Unsupported
	if !errors.As(err, &u) || !strings.Contains(u.Reason, "more than 3 cells") {
		t.Fatalf("got %v, want a reason naming the 3-cell limit", err)
	}
}

// TestComputeStopsWhenCancelled: a cancelled call is an error, not a
// reason: the read stops.
func TestComputeStopsWhenCancelled(t *testing.T) {
	w, formulas := openEngine(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	b := New(ctx, w)
	_, err := b.Compute("Sheet1", 4, 1, formulas["Sheet1!A4"])
	var u *Unsupported
	if err == nil || errors.As(err, &u) {
		t.Fatalf("got %v, want the cancellation", err)
	}
}

func openFuzzBook() (*workbook.Workbook, error) { return workbook.Open(engineBook, nil) }
