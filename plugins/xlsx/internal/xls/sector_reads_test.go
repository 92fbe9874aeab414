package xls

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/richardlehane/mscfb"
)

// countingReaderAt counts the reads that reach the file.
type countingReaderAt struct {
	ra    io.ReaderAt
	reads int
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	return c.ra.ReadAt(p, off)
}

// workbookStream reads a compound file's Workbook stream through ra.
func workbookStream(t *testing.T, ra io.ReaderAt) []byte {
	t.Helper()
	cf, err := mscfb.New(ra)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range cf.File {
		if len(e.Path) == 0 && strings.EqualFold(e.Name, "Workbook") {
			b, err := io.ReadAll(e)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatal("no Workbook stream")
	return nil
}

// The workbook stream reads the same bytes through blockReader, with the
// allocation table's 4-byte lookups, one a sector, answered from the
// block last read instead of each going to the file.
func TestWorkbookStreamReadsTheAllocationTableByBlock(t *testing.T) {
	f, err := os.Open(filepath.Join(filesDir, "sheetjs__formula_stress_test.xls"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	direct := &countingReaderAt{ra: f}
	want := workbookStream(t, direct)
	through := &countingReaderAt{ra: f}
	got := workbookStream(t, newBlockReader(through))
	if !bytes.Equal(got, want) {
		t.Fatalf("got %d bytes through blockReader, want the %d read directly", len(got), len(want))
	}
	if sectors := len(want) / blockSize; direct.reads < sectors {
		t.Fatalf("read directly in %d reads, want at least one a sector (%d): the file is not the one this test needs", direct.reads, sectors)
	}
	if through.reads*10 > direct.reads {
		t.Fatalf("got %d reads of the file through blockReader, want at most a tenth of the %d without it", through.reads, direct.reads)
	}
}

// Small reads at the end of a file shorter than a block, and past it,
// answer as the file does.
func TestBlockReaderAtTheEndOfTheFile(t *testing.T) {
	data := []byte(strings.Repeat("0123456789", 60)) // 600 bytes: a block and 88
	r := newBlockReader(bytes.NewReader(data))
	for _, off := range []int64{0, 508, 510, 512, 596, 598, 600, 700} {
		got := make([]byte, 4)
		n, err := r.ReadAt(got, off)
		wantB := make([]byte, 4)
		wn, werr := bytes.NewReader(data).ReadAt(wantB, off)
		if n != wn || (err == nil) != (werr == nil) || !bytes.Equal(got[:n], wantB[:wn]) {
			t.Errorf("at %d: got %d %q %v, want %d %q %v", off, n, got[:n], err, wn, wantB[:wn], werr)
		}
	}
}
