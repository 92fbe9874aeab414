// Command writers writes the differential corpus's excelize workbook: the
// same seeded recipe as writers.py (integers, decimals, text with escapes
// and non-ASCII, booleans, dates, date-times, times, percentages, formulas
// without cached values) written by excelize, so the corpus test compares
// the plugin with openpyxl on a workbook neither of them wrote.
//
//	go run ./tests/bench/xlsx/writers OUT.xlsx
package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/xuri/excelize/v2"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: writers OUT.xlsx")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "writers:", err)
		os.Exit(1)
	}
}

func write(out string) error {
	f := excelize.NewFile()
	defer f.Close()
	rnd := rand.New(rand.NewPCG(12, 0))
	sh := "Sheet1"
	headers := []any{"int", "decimal", "text", "bool", "date", "datetime", "time", "percent", "formula"}
	if err := f.SetSheetRow(sh, "A1", &headers); err != nil {
		return err
	}
	styles := map[string]string{"E": "yyyy-mm-dd", "F": "yyyy-mm-dd hh:mm:ss", "G": "h:mm", "H": "0.0%"}
	for col, format := range styles {
		fmtStr := format
		id, err := f.NewStyle(&excelize.Style{CustomNumFmt: &fmtStr})
		if err != nil {
			return err
		}
		if err := f.SetColStyle(sh, col, id); err != nil {
			return err
		}
	}
	texts := []string{"plain", "Grüße", "日本語", "tab\there", "line\nbreak", " padded ", "a & b < c", "snake_case_text", "𐐅 astral", ""}
	base := time.Date(1995, 3, 1, 0, 0, 0, 0, time.UTC)
	for r := 2; r <= 151; r++ {
		row := []any{
			rnd.IntN(2_000_000) - 1_000_000,
			float64(rnd.IntN(1_000_000)) / 1000,
			texts[rnd.IntN(len(texts))],
			rnd.IntN(2) == 1,
			base.AddDate(0, 0, rnd.IntN(20_000)),
			base.Add(time.Duration(rnd.Int64N(int64(20_000 * 24 * time.Hour)))).Truncate(time.Second),
			float64(rnd.IntN(86_400)) / 86_400,
			float64(rnd.IntN(1000)) / 1000,
		}
		if row[2] == "" {
			row[2] = nil
		}
		cell, err := excelize.CoordinatesToCellName(1, r)
		if err != nil {
			return err
		}
		if err := f.SetSheetRow(sh, cell, &row); err != nil {
			return err
		}
		if err := f.SetCellFormula(sh, fmt.Sprintf("I%d", r), fmt.Sprintf("A%d*2", r)); err != nil {
			return err
		}
	}
	return f.SaveAs(out)
}
