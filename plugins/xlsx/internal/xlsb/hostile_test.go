package xlsb

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

const filesDir = "../../testdata/formats/xlsb/files"

// base is a real workbook (SheetJS's merge_cells.xlsb): one sheet,
// xl/worksheets/sheet1.bin, with shared strings.
const base = "sheetjs__merge_cells.xlsb"

// rezip copies a corpus file with some parts replaced, stored with
// compression, and opens it.
func rezip(t *testing.T, name string, lim *workbook.Limits, replace map[string][]byte) (*workbook.Workbook, error) {
	t.Helper()
	zr, err := zip.OpenReader(filepath.Join(filesDir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, zf := range zr.File {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: zf.Name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if b, ok := replace[zf.Name]; ok {
			w.Write(b)
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(w, rc)
		rc.Close()
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	return Open(f, lim)
}

// rec encodes one BIFF12 record.
func rec(typ uint32, body []byte) []byte {
	return append(append(varint(typ), varint(uint32(len(body)))...), body...)
}

func varint(v uint32) []byte {
	var out []byte
	for {
		c := byte(v & 0x7F)
		v >>= 7
		if v != 0 {
			out = append(out, c|0x80)
			continue
		}
		return append(out, c)
	}
}

func le32(vs ...uint32) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	return b
}

func wide(s string) []byte {
	u := utf16.Encode([]rune(s))
	b := le32(uint32(len(u)))
	for _, c := range u {
		b = binary.LittleEndian.AppendUint16(b, c)
	}
	return b
}

// sheet wraps cell records in a row header and the sheet data's begin and
// end.
func sheet(cells ...[]byte) []byte {
	b := rec(recBeginSheetData, nil)
	b = append(b, rec(recRowHdr, le32(0, 0, 0))...)
	for _, c := range cells {
		b = append(b, c...)
	}
	return append(b, rec(recEndSheetData, nil)...)
}

func readAll(w *workbook.Workbook) ([][]workbook.Value, error) {
	var rows [][]workbook.Value
	for i := range w.Sheets {
		_, err := w.Stream(context.Background(), &w.Sheets[i], nil, func(r workbook.Row) error {
			rows = append(rows, append([]workbook.Value(nil), r.Cells...))
			return nil
		})
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

func TestHostileFilesAreRefusedWithTheirReason(t *testing.T) {
	const part = "xl/worksheets/sheet1.bin"
	tests := []struct {
		name    string
		lim     *workbook.Limits
		replace map[string][]byte
		kind    workbook.Kind
		msg     string
	}{
		{"record claiming 256 MiB", nil,
			map[string][]byte{part: append(rec(recBeginSheetData, nil), 0x81, 0x01, 0xFF, 0xFF, 0xFF, 0x7F)},
			workbook.Invalid, "more than any workbook record holds"},
		{"record claiming more than the part holds", nil,
			map[string][]byte{part: append(rec(recBeginSheetData, nil), 0x05, 0x80, 0x80, 0x80, 0x07, 1, 2, 3)},
			workbook.Invalid, "cut off inside the record"},
		{"record header longer than four bytes", nil,
			map[string][]byte{part: append(rec(recBeginSheetData, nil), 0x05, 0x80, 0x80, 0x80, 0x80, 0x01)},
			workbook.Invalid, "runs past 4 bytes"},
		{"shared string past the table", nil,
			map[string][]byte{part: sheet(rec(recCellIsst, le32(0, 0, 1_000_000)))},
			workbook.Invalid, "shared string 1000000"},
		{"column past Excel's grid", nil,
			map[string][]byte{part: sheet(rec(recCellReal, append(le32(1<<20, 0), make([]byte, 8)...)))},
			workbook.Invalid, "beyond Excel's 16384"},
		{"text longer than its record", nil,
			map[string][]byte{part: sheet(rec(recCellSt, append(le32(0, 0), le32(1<<30)...)))},
			workbook.Invalid, "runs past its record"},
		{"zip bomb", &workbook.Limits{MaxRatio: 100},
			map[string][]byte{part: make([]byte, 2<<20)},
			workbook.TooLarge, "likely zip bomb"},
		{"part over the size limit", &workbook.Limits{MaxPartSize: 1 << 20},
			map[string][]byte{part: make([]byte, 2<<20)},
			workbook.TooLarge, "over the 1048576-byte limit"},
		{"shared strings over the memory budget", &workbook.Limits{MaxMemory: 1 << 20},
			map[string][]byte{"xl/sharedStrings.bin": bytes.Repeat(rec(recSSTItem, append([]byte{0}, wide(strings.Repeat("x", 1000))...)), 2000)},
			workbook.TooLarge, "memory budget"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := rezip(t, base, tt.lim, tt.replace)
			if err == nil {
				_, err = readAll(w)
				w.Close()
			}
			var we *workbook.Error
			if !errors.As(err, &we) || we.Kind != tt.kind || !strings.Contains(we.Error(), tt.msg) {
				t.Fatalf("got %v, want a %v error saying %q", err, tt.kind, tt.msg)
			}
		})
	}
}

func TestCellRecordsReadAsExcelShowsThem(t *testing.T) {
	cell := func(typ uint32, col uint32, rest ...byte) []byte {
		return rec(typ, append(le32(col, 0), rest...))
	}
	real := func(x float64) []byte { return binary.LittleEndian.AppendUint64(nil, math.Float64bits(x)) }
	w, err := rezip(t, base, nil, map[string][]byte{"xl/worksheets/sheet1.bin": sheet(
		cell(recCellRk, 0, le32(uint32(12345<<2|2|1))...), // 123.45, an integer /100
		cell(recCellReal, 1, real(2.5)...),
		cell(recCellBool, 2, 1),
		cell(recCellError, 3, 0x2A),
		cell(recFmlaError, 4, 0x07),
		cell(recCellSt, 5, wide("text")...),
		cell(recFmlaString, 6, wide("result")...),
		cell(recCellRString, 7, append([]byte{1}, wide("rich")...)...),
		cell(recCellBlank, 8),
		cell(recCellRk, 9, le32(uint32(7<<2|2))...),
	)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	rows, err := readAll(w)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{123.45, 2.5, true, "#N/A", "#DIV/0!", "text", "result", "rich", nil, int64(7)}
	if len(rows) != 1 || len(rows[0]) != len(want) {
		t.Fatalf("rows %v, want one of %d cells", rows, len(want))
	}
	for i, v := range rows[0] {
		var got any
		switch v.Kind {
		case workbook.KindFloat:
			got = v.Num
		case workbook.KindInt:
			got = v.Int
		case workbook.KindBool:
			got = v.Bool
		case workbook.KindString, workbook.KindError:
			got = v.Str
		}
		if got != want[i] {
			t.Errorf("cell %d: %v (%v), want %v", i, got, v.Kind, want[i])
		}
	}
}

// TestSharedFormulasKeptWithinTheirBudget: a shared formula's cells get
// its text moved to each; past the budget for shared formulas' tokens a
// definition is not kept and its cells get no text, with the reason.
func TestSharedFormulasKeptWithinTheirBudget(t *testing.T) {
	num := func(col uint32, rgce, extra []byte) []byte {
		b := append(le32(col, 0), make([]byte, 8)...) // the value 0
		b = append(b, 0, 0)                           // flags
		b = append(append(b, le32(uint32(len(rgce)))...), rgce...)
		return rec(recFmlaNum, append(append(b, le32(uint32(len(extra)))...), extra...))
	}
	exp := []byte{0x01, 0, 0, 0, 0}                 // PtgExp: row 0; its column in the data
	refLeft := []byte{0x4C, 0, 0, 0, 0, 0xFF, 0xFF} // the cell to the left, relative
	shr := rec(recShrFmla, append(append(le32(0, 1, 1, 1), le32(uint32(len(refLeft)))...), append(refLeft, le32(0)...)...))
	part := append(rec(recBeginSheetData, nil), rec(recRowHdr, le32(0, 0, 0))...)
	part = append(part, num(1, exp, le32(1))...)
	part = append(part, shr...)
	part = append(part, rec(recRowHdr, le32(1, 0, 0))...)
	part = append(part, num(1, exp, le32(1))...)
	part = append(part, rec(recEndSheetData, nil)...)
	for _, tc := range []struct {
		budget int
		want   []string
	}{
		{16 << 20, []string{"=A1", "=A2"}},
		{1, []string{"no text", "no text"}},
	} {
		old := maxSharedBytes
		maxSharedBytes = tc.budget
		w, err := rezip(t, base, nil, map[string][]byte{"xl/worksheets/sheet1.bin": part})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		_, err = w.Stream(context.Background(), &w.Sheets[0], &workbook.StreamOptions{Formulas: true}, func(r workbook.Row) error {
			f := ""
			if len(r.Formulas) > 1 {
				f = r.Formulas[1]
			}
			if reason, none := workbook.FormulaReason(f); none {
				if !strings.Contains(reason, "memory kept") {
					t.Errorf("budget %d: reason %q", tc.budget, reason)
				}
				f = "no text"
			}
			got = append(got, f)
			return nil
		})
		w.Close()
		maxSharedBytes = old
		if err != nil || strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("budget %d: %q, %v; want %q", tc.budget, got, err, tc.want)
		}
	}
}
