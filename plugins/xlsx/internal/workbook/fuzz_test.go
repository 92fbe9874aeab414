package workbook

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzSheetXML feeds arbitrary bytes to the worksheet parser: it may refuse
// them, never panic, and every row it yields is trimmed and in the grid.
func FuzzSheetXML(f *testing.F) {
	for _, seed := range []string{
		`<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>1.5</v></c></row></sheetData></worksheet>`,
		`<x:worksheet xmlns:x="m"><x:sheetData><x:row><x:c t="inlineStr"><x:is><x:r><x:t>a&amp;b</x:t></x:r><x:rPh><x:t>no</x:t></x:rPh></x:is></x:c></x:row></x:sheetData></x:worksheet>`,
		`<worksheet><dimension ref="A1:XFD1048576"/><sheetData><row r="2"><c r="C2" s="1"><v>44197</v></c><c t="b"><v>1</v></c><c t="e"><v>#N/A</v></c><c t="d"><v>2021-01-01T10:00:00</v></c></row></sheetData><mergeCells><mergeCell ref="A1:B2"/></mergeCells></worksheet>`,
		`<worksheet><sheetData><row r="1"><c r="A1" t="str"><f>1+1</f><v><![CDATA[x<y]]></v></c></row></sheetData></worksheet>`,
		// Formula cells the one-step path steps over: shared, with text,
		// with a '>' in an attribute, without a cached value, empty.
		`<worksheet><sheetData><row r="1"><c r="A1" t="str"><f t="shared" ref="A1:B1" si="0">A1&amp;"&gt;"</f><v>x</v></c><c r="B1" t="str"><f t="shared" si="0"/><v>y</v></c><c r="C1"><f a=">">1</f><v>2</v></c><c r="D1"><f>SUM(A1)</f></c><c r="E1"><f>1</f><v></v></c><c r="F1"><f/><v>3</v></c><c r="G1"><foo/><v>4</v></c></row></sheetData></worksheet>`,
		`<?xml version="1.0"?><!-- c --><worksheet><sheetData><row r="1.0"><c r="A1"><v>1e400</v></c></row></sheetData></worksheet>`,
	} {
		f.Add([]byte(seed))
	}
	styles := []styleInfo{{}, {date: true}, {date: true, elapsed: true}}
	w := &Workbook{styles: styles}
	slow := &Workbook{styles: styles, tokensOnly: true}
	sst := []string{"shared"}
	f.Fuzz(func(t *testing.T, data []byte) {
		// The one-step cell path and the token path agree.
		collect := func(w *Workbook) string {
			var b []byte
			st, err := w.streamFrom(context.Background(), bytes.NewReader(data), "fuzz.xml", sst, StreamOptions{}, func(r Row) error {
				b = append(b, fmt.Sprintf("%d:", r.Num)...)
				b = AppendRowJSON(b, r.Cells)
				return nil
			})
			return fmt.Sprintf("%s %+v %v", b, st, err)
		}
		if fast, tokens := collect(w), collect(slow); fast != tokens {
			t.Fatalf("one-step path:\n%s\ntoken path:\n%s", fast, tokens)
		}
		for _, statsOnly := range []bool{false, true} {
			st, _ := w.streamFrom(context.Background(), bytes.NewReader(data), "fuzz.xml", sst, StreamOptions{StatsOnly: statsOnly}, func(r Row) error {
				if r.Num < 1 || r.Num > MaxRows || len(r.Cells) > MaxColumns {
					t.Fatalf("row %d with %d cells is outside the grid", r.Num, len(r.Cells))
				}
				if n := len(r.Cells); !statsOnly && (n == 0 || r.Cells[n-1].IsEmpty()) {
					t.Fatalf("row %d is not trimmed: %v", r.Num, r.Cells)
				}
				return nil
			})
			if st.MaxRow < 1 || st.MaxColumn < 1 || st.MaxRow > MaxRows || st.MaxColumn > MaxColumns {
				t.Fatalf("extent %dx%d", st.MaxRow, st.MaxColumn)
			}
		}
	})
}

// TestOneStepPathOnCorpus reads every corpus sheet both ways (the largest,
// 57 MB of XML, aside) and wants the same rows.
func TestOneStepPathOnCorpus(t *testing.T) {
	skipUnderRace(t)
	files, _ := filepath.Glob("../../testdata/corpus/files/*.xls[xm]")
	if len(files) == 0 {
		t.Fatal("no corpus")
	}
	read := func(p string, tokensOnly bool) string {
		w, err := Open(p, nil)
		if err != nil {
			return err.Error()
		}
		defer w.Close()
		w.tokensOnly = tokensOnly
		var b []byte
		for i := range w.Sheets {
			st, err := w.Stream(context.Background(), &w.Sheets[i], nil, func(r Row) error {
				b = append(b, fmt.Sprintf("%d:", r.Num)...)
				b = AppendRowJSON(b, r.Cells)
				return nil
			})
			b = append(b, fmt.Sprintf("%+v %v\n", st, err)...)
		}
		return string(b)
	}
	for _, p := range files {
		if strings.Contains(p, "large_strings") {
			continue
		}
		if fast, tokens := read(p, false), read(p, true); fast != tokens {
			t.Errorf("%s: the one-step path and the token path differ", filepath.Base(p))
		}
	}
}
