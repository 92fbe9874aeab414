package xls

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

// TestDamagedFilesFailCleanly cuts and scrambles every corpus file the
// same way each run: each must open and read, or fail with an error, never
// panic.
func TestDamagedFilesFailCleanly(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(filesDir, "*.xls"))
	if len(files) == 0 {
		t.Fatal("no corpus files")
	}
	rng := rand.New(rand.NewPCG(34, 34))
	dir := t.TempDir()
	for _, name := range files {
		orig, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < 6; k++ {
			b := append([]byte(nil), orig...)
			if k < 2 {
				b = b[:len(b)*(k+1)/3]
			} else {
				for i := 0; i < 8; i++ {
					b[rng.IntN(len(b))] = byte(rng.IntN(256))
				}
			}
			p := filepath.Join(dir, "damaged.xls")
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s damaged %d: panic %v", filepath.Base(name), k, r)
					}
				}()
				f, err := os.Open(p)
				if err != nil {
					t.Fatal(err)
				}
				w, err := Open(f, &workbook.Limits{MaxMemory: 64 << 20})
				if err != nil {
					return
				}
				defer w.Close()
				for i := range w.Sheets {
					_, _ = w.Stream(context.Background(), &w.Sheets[i], &workbook.StreamOptions{StatsOnly: k%2 == 0}, func(workbook.Row) error { return nil })
				}
			}()
		}
	}
}
