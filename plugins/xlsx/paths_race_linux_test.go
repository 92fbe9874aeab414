package main

// The swap uses renameat2(RENAME_EXCHANGE), which only Linux has.

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/toolhost/toolhost/internal/testplugin"
)

// TestPathRaceSymlinkSwap races a folder inside the root being swapped for
// a symlink to a folder outside it while the plugin opens a workbook
// through that folder (issue 9, defect 8: resolve and check, then open by
// name, read files outside the roots 182 times in 11,845). Opening beneath
// an os.Root of the allowed root leaves no window: no read may ever return
// the outside workbook's cell.
func TestPathRaceSymlinkSwap(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	inside, outside := filepath.Join(base, "in"), filepath.Join(base, "out")
	for _, d := range []string{inside, outside, filepath.Join(inside, "d")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(rootsEnv, inside)
	cell := func(text string) string {
		return sheetHead + `<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>` + text + `</t></is></c></row></sheetData></worksheet>`
	}
	writeZip(t, filepath.Join(inside, "d", "book.xlsx"), minimalParts(cell("inside")))
	writeZip(t, filepath.Join(outside, "book.xlsx"), minimalParts(cell("SECRET")))

	// The folder and a symlink to the outside trade names atomically
	// (renameat2 RENAME_EXCHANGE), so at any instant the path leads either
	// inside or outside.
	dir, link := filepath.Join(inside, "d"), filepath.Join(inside, "d.link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	tries := testplugin.Size(200, 1000) // make check: 1,000
	read, refused, escapes := 0, 0, 0
	for range tries {
		out, e := call(t, "read-sheet", map[string]any{"path": filepath.Join(dir, "book.xlsx")})
		switch {
		case e != nil:
			if e.Code != codePathNotAllowed {
				t.Errorf("got %v, want a result or path_not_allowed", e)
			}
			refused++
		case strings.Contains(toJSON(out["rows"]), "SECRET"):
			escapes++
		default:
			read++
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d tries: %d read inside, %d refused, %d escapes", tries, read, refused, escapes)
	if escapes > 0 {
		t.Errorf("%d of %d reads returned the workbook outside the root", escapes, tries)
	}
	if read == 0 {
		t.Errorf("no read succeeded: the race was not run")
	}
}
