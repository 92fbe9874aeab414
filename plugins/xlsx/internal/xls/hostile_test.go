package xls

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

const filesDir = "../../testdata/formats/xls/files"

// patched copies a corpus file into a temporary folder after fix edits
// its bytes, and opens it.
func patched(t *testing.T, name string, lim *workbook.Limits, fix func(b []byte)) (*workbook.Workbook, error) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filesDir, name))
	if err != nil {
		t.Fatal(err)
	}
	fix(b)
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	return Open(f, lim)
}

// dirEntry finds the compound-file directory entry of a stream by name.
func dirEntry(t *testing.T, b []byte, name string) []byte {
	t.Helper()
	var u []byte
	for _, c := range utf16.Encode([]rune(name)) {
		u = binary.LittleEndian.AppendUint16(u, c)
	}
	i := bytes.Index(b, append(u, 0, 0))
	if i < 0 || i%128 != 0 {
		t.Fatalf("no directory entry %q", name)
	}
	return b[i : i+128]
}

func readAll(t *testing.T, w *workbook.Workbook) (rows int, err error) {
	t.Helper()
	for i := range w.Sheets {
		_, err = w.Stream(context.Background(), &w.Sheets[i], nil, func(workbook.Row) error { rows++; return nil })
		if err != nil {
			return rows, err
		}
	}
	return rows, nil
}

func TestWorkbookStreamClaimingMoreThanTheFileIsRefused(t *testing.T) {
	_, err := patched(t, "sheetjs__number_format.xls", nil, func(b []byte) {
		binary.LittleEndian.PutUint32(dirEntry(t, b, "Workbook")[0x78:], 0x7FFFFFF0)
	})
	var we *workbook.Error
	if !errors.As(err, &we) || we.Kind != workbook.Invalid || !strings.Contains(we.Msg, "claims 2147483632 bytes") {
		t.Fatalf("got %v, want the stream's claim refused", err)
	}
}

// A sector chain that loops back on itself can only repeat sectors up to
// the stream's size, which is no larger than the file: reading ends.
func TestSectorChainLoopEndsWithinTheStreamSize(t *testing.T) {
	w, err := patched(t, "sheetjs__number_format.xls", nil, func(b []byte) {
		start := binary.LittleEndian.Uint32(dirEntry(t, b, "Workbook")[0x74:])
		fat := binary.LittleEndian.Uint32(b[0x4C:])
		// The stream's second sector links back to its first.
		next := binary.LittleEndian.Uint32(b[512*(fat+1)+4*start:])
		binary.LittleEndian.PutUint32(b[512*(fat+1)+4*next:], start)
	})
	if err == nil {
		defer w.Close()
		_, err = readAll(t, w)
	}
	if err == nil {
		t.Fatal("a looping workbook stream read without error")
	}
}

func TestSharedStringsOverTheMemoryBudgetAreRefused(t *testing.T) {
	_, err := patched(t, "sheetjs__formula_stress_test.xls", &workbook.Limits{MaxMemory: 8000}, func([]byte) {})
	var we *workbook.Error
	if !errors.As(err, &we) || we.Kind != workbook.TooLarge || !we.Budget || !strings.Contains(we.Msg, "shared-string table") {
		t.Fatalf("got %v, want the shared-string table refused by the budget", err)
	}
	w, err := patched(t, "sheetjs__formula_stress_test.xls", &workbook.Limits{MaxMemory: 16000}, func([]byte) {})
	if err != nil {
		t.Fatalf("the default budget: %v", err)
	}
	w.Close()
}

// The SST's declared count of strings is not trusted for any allocation: a
// claim of four billion strings reads the strings that are there.
func TestDeclaredStringCountIsNotAllocated(t *testing.T) {
	w, err := patched(t, "calamine__tests_issues.xls", &workbook.Limits{MaxMemory: 1 << 20}, func(b []byte) {
		i := bytes.Index(b, []byte{0xFC, 0x00})
		for ; i >= 0; i = bytes.Index(b[i+2:], []byte{0xFC, 0x00}) + i + 2 {
			if binary.LittleEndian.Uint16(b[i+2:]) > 8 && binary.LittleEndian.Uint32(b[i+4:]) >= binary.LittleEndian.Uint32(b[i+8:]) {
				binary.LittleEndian.PutUint32(b[i+8:], 0xFFFFFFFF)
				return
			}
		}
		t.Fatal("no SST record")
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if rows, err := readAll(t, w); err != nil || rows == 0 {
		t.Fatalf("read %d rows: %v", rows, err)
	}
}

func TestCancelledReadStops(t *testing.T) {
	f, err := os.Open(filepath.Join(filesDir, "sheetjs__number_format.xls"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := Open(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.Stream(ctx, &w.Sheets[0], nil, func(workbook.Row) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestNonWorkbookFilesUnderAnXLSNameAreNamed(t *testing.T) {
	for _, tc := range []struct{ name, content, want string }{
		{"html.xls", "<html><body><table><tr><td>1</td></tr></table></body></html>", "HTML or XML page"},
		{"xml.xls", `<?xml version="1.0"?><Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet"/>`, "SpreadsheetML"},
		{"text.xls", "a,b,c\n1,2,3\n", "no OLE compound file signature"},
		{"empty.xls", "", "empty"},
	} {
		p := filepath.Join(t.TempDir(), tc.name)
		if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Open(f, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
}
