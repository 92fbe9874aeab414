//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// multiSheetParts is a workbook of sheets, each given as its <dimension>
// claim ("" for none) and its row count; every row holds two inline
// strings of about 100 characters, so a sheet of a few thousand rows is
// bigger than the save buffer and its lines reach the file before its
// header is known.
func multiSheetParts(sheets []struct {
	dim  string
	rows int
}) [][2]string {
	var wb, rels strings.Builder
	parts := [][2]string{
		{"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`},
		{"_rels/.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`},
	}
	wb.WriteString(`<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>`)
	rels.WriteString(`<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`)
	long := strings.Repeat("ă long cell text ", 6)
	for i, sh := range sheets {
		fmt.Fprintf(&wb, `<sheet name="S%d" sheetId="%d" r:id="rId%d"/>`, i+1, i+1, i+1)
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet%d.xml"/>`, i+1, i+1)
		var x strings.Builder
		x.WriteString(sheetHead)
		if sh.dim != "" {
			fmt.Fprintf(&x, `<dimension ref="%s"/>`, sh.dim)
		}
		x.WriteString(`<sheetData>`)
		for r := 1; r <= sh.rows; r++ {
			fmt.Fprintf(&x, `<row r="%d"><c r="A%d" t="inlineStr"><is><t>%s%d</t></is></c><c r="B%d" t="inlineStr"><is><t>%s</t></is></c></row>`, r, r, long, r, r, long)
		}
		x.WriteString(`</sheetData></worksheet>`)
		parts = append(parts, [2]string{fmt.Sprintf("xl/worksheets/sheet%d.xml", i+1), x.String()})
	}
	wb.WriteString(`</sheets></workbook>`)
	rels.WriteString(`</Relationships>`)
	return append(parts, [2]string{"xl/workbook.xml", wb.String()}, [2]string{"xl/_rels/workbook.xml.rels", rels.String()})
}

// TestDumpSavedHeaderGuesses saves dumps whose sheets' <dimension> claims
// are right, too long, too short, missing or empty-sheet: each sheet's
// lines are written after a gap for the header guessed from the claim, and
// moved when the real used range is longer or shorter. The saved file must
// equal the inline text, whichever way the pending file is made.
func TestDumpSavedHeaderGuesses(t *testing.T) {
	sheets := []struct {
		dim  string
		rows int
	}{
		{"A1:B3000", 3000},      // right
		{"A1:XFD1048576", 3000}, // too long: lines move left
		{"A1", 6000},            // too short: lines move right, more than one chunk
		{"", 3000},              // none
		{"A1:B2", 0},            // empty sheet
		{"B2:C3", 10},           // small: the header is known before any line is written
	}
	for _, unnamed := range []bool{true, false} {
		t.Run(fmt.Sprintf("unnamed=%v", unnamed), func(t *testing.T) {
			defer func(v bool) { unnamedOutput = v }(unnamedOutput)
			unnamedOutput = unnamed
			dir := allowDir(t)
			src := filepath.Join(dir, "book.xlsx")
			writeZip(t, src, multiSheetParts(sheets))
			inline := mustCall(t, "dump", map[string]any{"path": src})
			dest := filepath.Join(dir, "out.txt")
			saved := mustCall(t, "dump", map[string]any{"path": src, "save": dest})
			got, err := os.ReadFile(dest)
			if err != nil {
				t.Fatal(err)
			}
			text, _ := inline["text"].(string)
			if string(got) != text {
				t.Fatalf("saved text (%d bytes) differs from the inline text (%d bytes) at byte %d", len(got), len(text), firstDiff(string(got), text))
			}
			for _, want := range []string{"(dims A1:B3000)", "(dims A1:B10)", "(empty)"} {
				if !strings.Contains(text, want) {
					t.Errorf("the dump has no %q", want)
				}
			}
			if toJSON(saved["characters"]) != toJSON(inline["characters"]) {
				t.Errorf("characters: saved %v, inline %v", saved["characters"], inline["characters"])
			}
			assertOnly(t, dir, "book.xlsx", "out.txt")
		})
	}
}

// TestDumpSavedFailureLeavesNothing breaks a sheet after more text than
// the save buffer holds: the dump fails and the folder holds neither the
// target nor a pending file, whichever way that was made.
func TestDumpSavedFailureLeavesNothing(t *testing.T) {
	for _, unnamed := range []bool{true, false} {
		t.Run(fmt.Sprintf("unnamed=%v", unnamed), func(t *testing.T) {
			defer func(v bool) { unnamedOutput = v }(unnamedOutput)
			unnamedOutput = unnamed
			dir := allowDir(t)
			parts := multiSheetParts([]struct {
				dim  string
				rows int
			}{{"A1:B3000", 3000}})
			for i := range parts {
				if strings.HasSuffix(parts[i][0], "sheet1.xml") {
					parts[i][1] = strings.Replace(parts[i][1], `</sheetData>`, `<row r="3001"><c r="A3001" t="s"><v>7</v></c></row></sheetData>`, 1)
				}
			}
			src := filepath.Join(dir, "book.xlsx")
			writeZip(t, src, parts)
			if _, e := call(t, "dump", map[string]any{"path": src, "save": filepath.Join(dir, "out.txt")}); e == nil {
				t.Fatal("a broken sheet was saved without an error")
			}
			assertOnly(t, dir, "book.xlsx")
		})
	}
}

// assertOnly fails unless dir holds exactly these names.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("folder holds %q, want %q", got, names)
	}
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
