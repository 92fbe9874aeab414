package workbook

import (
	"archive/zip"
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// writeRows writes a one-sheet workbook of n rows (a number, an inline
// string, a date-formatted serial), stored uncompressed so the test spends
// its time reading, not deflating.
func writeRows(t testing.TB, n int) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), fmt.Sprintf("rows%d.xlsx", n))
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zw := zip.NewWriter(f)
	put := func(name, body string) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	put("_rels/.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`)
	put("xl/workbook.xml", `<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Big" sheetId="1" r:id="rId1"/></sheets></workbook>`)
	put("xl/_rels/workbook.xml.rels", `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`)
	put("xl/styles.xml", `<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs></styleSheet>`)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "xl/worksheets/sheet1.xml", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(`<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`)
	var b []byte
	for r := 1; r <= n; r++ {
		rs := strconv.Itoa(r)
		b = append(b[:0], `<row r="`...)
		b = append(b, rs...)
		b = append(b, `"><c r="A`...)
		b = append(b, rs...)
		b = append(b, `"><v>`...)
		b = append(b, rs...)
		b = append(b, `</v></c><c r="B`...)
		b = append(b, rs...)
		b = append(b, `" t="inlineStr"><is><t>name `...)
		b = strconv.AppendInt(b, int64(r%1000), 10)
		b = append(b, `</t></is></c><c r="C`...)
		b = append(b, rs...)
		b = append(b, `" s="1"><v>`...)
		b = strconv.AppendInt(b, int64(40000+r%3000), 10)
		b = append(b, `</v></c></row>`...)
		bw.Write(b)
	}
	bw.WriteString(`</sheetData></worksheet>`)
	bw.Flush()
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

// peakHeap streams the whole sheet and returns the largest live heap seen
// (measured after a collection at every tenth of the n rows) above the heap
// before.
func peakHeap(t *testing.T, p string, n int) (peak uint64, rows int) {
	t.Helper()
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC() // what finalizers of the last test's files let go
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	w, err := Open(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	_, err = w.Stream(context.Background(), &w.Sheets[0], nil, func(r Row) error {
		rows++
		if rows%(n/10) == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base {
				peak = max(peak, ms.HeapAlloc-base)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return peak, rows
}

func TestStreamingMemoryIndependentOfRows(t *testing.T) {
	skipUnderRace(t)
	small, nSmall := peakHeap(t, writeRows(t, 10_000), 10_000)
	big, nBig := peakHeap(t, writeRows(t, 200_000), 200_000)
	if nSmall != 10_000 || nBig != 200_000 {
		t.Fatalf("streamed %d and %d rows, want 10000 and 200000", nSmall, nBig)
	}
	t.Logf("live heap while streaming: %d bytes for 10k rows, %d bytes for 200k rows", small, big)
	// 20 times the rows may not take more than 1.5 times the memory (plus
	// 256 KiB of slack for the collector's own bookkeeping).
	if big > small*3/2+256<<10 {
		t.Errorf("heap grows with the row count: %d bytes for 10k rows, %d for 200k", small, big)
	}
}

// TestSharedStringsAreBounded: a shared-string table over the limit is
// refused as TooLarge when a sheet needs it read that far (its last
// string); a sheet that uses none reads without loading it at all, and
// one that uses only its first string reads only that far.
func TestSharedStringsAreBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sst.xlsx")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	put := func(name, body string) {
		w, _ := zw.Create(name)
		w.Write([]byte(body))
	}
	put("xl/workbook.xml", `<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" r:id="rId1"/><sheet name="Inline" r:id="rId2"/></sheets></workbook>`)
	put("xl/_rels/workbook.xml.rels", `<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>`+
		`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet2.xml"/></Relationships>`)
	put("xl/worksheets/sheet1.xml", `<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>999</v></c></row></sheetData></worksheet>`)
	put("xl/worksheets/sheet2.xml", `<worksheet><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>x</t></is></c><c r="B1" t="str"><f>"y"</f><v>y</v></c><c r="C1" t="s"><v>0</v></c></row></sheetData></worksheet>`)
	var sst strings.Builder
	sst.WriteString("<sst>")
	for range 1000 {
		sst.WriteString("<si><t>" + strings.Repeat("x", 1000) + "</t></si>")
	}
	sst.WriteString("</sst>")
	put("xl/sharedStrings.xml", sst.String())
	zw.Close()
	f.Close()
	w, err := Open(p, &Limits{MaxSharedStrings: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var got []Value
	if _, err := w.Stream(context.Background(), &w.Sheets[1], nil, func(r Row) error {
		got = append(got, r.Cells...)
		return nil
	}); err != nil || len(got) != 3 || got[0].Str != "x" || got[1].Str != "y" || got[2].Str != strings.Repeat("x", 1000) {
		t.Errorf("a sheet with only the first shared string: %v, %v; want x, y and the first string read", got, err)
	}
	_, err = w.Stream(context.Background(), &w.Sheets[0], nil, func(Row) error { return nil })
	var we *Error
	if !errors.As(err, &we) || we.Kind != TooLarge {
		t.Errorf("got %v, want a TooLarge error", err)
	}
}
