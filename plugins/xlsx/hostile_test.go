package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/sdk"
)

func TestBrokenPackages(t *testing.T) {
	sample := sampleXLSX(t)
	dir := filepath.Dir(sample)
	good, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	sheet := sheetHead + `<sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>`
	drop := func(name string) [][2]string {
		var out [][2]string
		for _, p := range minimalParts(sheet) {
			if p[0] != name {
				out = append(out, p)
			}
		}
		return out
	}
	tests := []struct {
		name    string
		write   func(p string)
		action  string
		code    sdk.Code
		message string
	}{
		{"not a zip", func(p string) { os.WriteFile(p, []byte("hello, I am a CSV,1,2\n"), 0o644) },
			"list-sheets", codeInvalidWorkbook, "not a zip"},
		{"empty file", func(p string) { os.WriteFile(p, nil, 0o644) },
			"list-sheets", codeInvalidWorkbook, "empty"},
		{"truncated zip", func(p string) { os.WriteFile(p, good[:len(good)/2], 0o644) },
			"list-sheets", codeInvalidWorkbook, "truncated"},
		{"ole container", func(p string) {
			os.WriteFile(p, append([]byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}, make([]byte, 1024)...), 0o644)
		}, "read-sheet", codeInvalidWorkbook, "the OLE compound file (the container of an .xls workbook) is corrupt"},
		{"empty zip", func(p string) { writeZip(t, p, nil) },
			"list-sheets", codeInvalidWorkbook, "xl/workbook.xml"},
		{"no workbook part", func(p string) { writeZip(t, p, drop("xl/workbook.xml")) },
			"list-sheets", codeInvalidWorkbook, "missing part xl/workbook.xml"},
		{"no workbook rels", func(p string) { writeZip(t, p, drop("xl/_rels/workbook.xml.rels")) },
			"list-sheets", codeInvalidWorkbook, "missing part xl/_rels/workbook.xml.rels"},
		{"no sheet part", func(p string) { writeZip(t, p, drop("xl/worksheets/sheet1.xml")) },
			"read-sheet", codeInvalidWorkbook, "missing part xl/worksheets/sheet1.xml"},
		{"malformed sheet", func(p string) { writeZip(t, p, minimalParts(sheetHead+`<sheetData><row r="1"><c r="A1"><v>1</v></c>`)) },
			"read-sheet", codeInvalidWorkbook, "xl/worksheets/sheet1.xml"},
		{"doctype", func(p string) {
			writeZip(t, p, minimalParts(`<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]>`+sheetHead+`<sheetData/></worksheet>`))
		}, "read-sheet", codeInvalidWorkbook, "DOCTYPE"},
		{"bad cell reference", func(p string) {
			writeZip(t, p, minimalParts(sheetHead+`<sheetData><row r="1"><c r="A0"><v>1</v></c></row></sheetData></worksheet>`))
		}, "read-sheet", codeInvalidWorkbook, `"A0"`},
		{"column past XFD", func(p string) {
			writeZip(t, p, minimalParts(sheetHead+`<sheetData><row r="1"><c r="XFE1"><v>1</v></c></row></sheetData></worksheet>`))
		}, "read-sheet", codeInvalidWorkbook, `"XFE1"`},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, fmt.Sprintf("broken%d.xlsx", i))
			tc.write(p)
			_, e := call(t, tc.action, map[string]any{"path": p})
			if e == nil {
				t.Fatalf("got a result, want %s", tc.code)
			}
			if e.Code != tc.code || !strings.Contains(e.Message, tc.message) {
				t.Errorf("got %s %q, want %s containing %q", e.Code, e.Message, tc.code, tc.message)
			}
		})
	}
}

func TestUnknownSheetSuggests(t *testing.T) {
	p := sampleXLSX(t)
	tests := []struct {
		action, sheet string
		want          string
	}{
		{"read-sheet", "data", "Data"},
		{"read-sheet", "Dta", "Data"},
		{"records", "Emty", "Empty"},
		{"describe", "DATA ", "Data"},
		{"read-range", "empty", "Empty"},
		{"search", "Datas", "Data"},
	}
	for _, tc := range tests {
		args := map[string]any{"path": p, "sheet": tc.sheet}
		switch tc.action { // only the args each action declares: others are refused before the handler
		case "read-range":
			args["range"] = "A1:B2"
		case "search":
			args["query"] = "x"
		}
		_, e := call(t, tc.action, args)
		if e == nil || e.Code != sdk.CodeInvalidArgs {
			t.Errorf("%s sheet %q: got %v, want invalid_args", tc.action, tc.sheet, e)
			continue
		}
		if len(e.DidYouMean) == 0 || e.DidYouMean[0] != tc.want {
			t.Errorf("%s sheet %q: did_you_mean %v, want %s first", tc.action, tc.sheet, e.DidYouMean, tc.want)
		}
		if got := toJSON(e.Details["sheets"]); got != `["Data","Empty"]` {
			t.Errorf("%s: details.sheets = %s", tc.action, got)
		}
	}
}

// allocated runs fn and returns the bytes it allocated.
func allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

func TestClaimsDoNotAllocate(t *testing.T) {
	dir := allowDir(t)
	var merges strings.Builder
	merges.WriteString(`<mergeCells count="50000">`)
	for i := range 50000 {
		fmt.Fprintf(&merges, `<mergeCell ref="A%d:C%d"/>`, i+2, i+2)
	}
	merges.WriteString(`</mergeCells>`)
	tests := []struct {
		name, sheet        string
		rows, columns, dim string
		merged             string
		maxAlloc           uint64
	}{
		{"dimension claims the whole grid",
			sheetHead + `<dimension ref="A1:XFD1048576"/><sheetData><row r="1"><c r="A1"><v>1</v></c><c r="B1" t="inlineStr"><is><t>x</t></is></c></row>` +
				`<row r="1048576"><c r="XFD1048576" s="1"/></row></sheetData></worksheet>`,
			"1048576", "16384", "A1:XFD1048576", "<nil>", 8 << 20},
		{"50,000 merged ranges",
			sheetHead + `<dimension ref="A1:C50001"/><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData>` + merges.String() + `</worksheet>`,
			"50001", "3", "A1:C50001", "50000", 32 << 20},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, fmt.Sprintf("claim%d.xlsx", i))
			writeZip(t, p, minimalParts(tc.sheet))
			var out map[string]any
			n := allocated(func() { out = mustCall(t, "list-sheets", map[string]any{"path": p}) })
			s := out["sheets"].([]any)[0].(map[string]any)
			for k, want := range map[string]string{"rows": tc.rows, "columns": tc.columns, "dimension": tc.dim,
				"merged_ranges": tc.merged} {
				if got := jsonString(s[k]); got != want {
					t.Errorf("%s = %s, want %s", k, got, want)
				}
			}
			if got := jsonString(s["used_range"]); got != "A1:B1" && got != "A1:A1" {
				t.Errorf("used_range = %s", got)
			}
			if n > tc.maxAlloc {
				t.Errorf("list-sheets allocated %d bytes, over %d: it allocates for the claim", n, tc.maxAlloc)
			}
			n = allocated(func() { mustCall(t, "read-sheet", map[string]any{"path": p}) })
			if n > tc.maxAlloc {
				t.Errorf("read-sheet allocated %d bytes, over %d", n, tc.maxAlloc)
			}
		})
	}
}

// rawZip writes a package whose sheet part is stored with the sizes given
// in its header, true or not.
func rawZip(t *testing.T, p string, sheet []byte, compressed []byte, declared uint64) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, part := range minimalParts("") {
		if part[0] == "xl/worksheets/sheet1.xml" {
			h := &zip.FileHeader{Name: part[0], Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(sheet),
				CompressedSize64: uint64(len(compressed)), UncompressedSize64: declared}
			w, err := zw.CreateRaw(h)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(compressed)
			continue
		}
		w, _ := zw.Create(part[0])
		w.Write([]byte(part[1]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCorruptPartData(t *testing.T) {
	dir := allowDir(t)
	sheet := []byte(sheetHead + `<sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>`)
	p := filepath.Join(dir, "crc.xlsx")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, part := range minimalParts(string(sheet)) {
		if part[0] == "xl/worksheets/sheet1.xml" {
			h := &zip.FileHeader{Name: part[0], Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(sheet) + 1,
				CompressedSize64: 0, UncompressedSize64: uint64(len(sheet))}
			d := deflate(t, sheet)
			h.CompressedSize64 = uint64(len(d))
			w, _ := zw.CreateRaw(h)
			w.Write(d)
			continue
		}
		w, _ := zw.Create(part[0])
		w.Write([]byte(part[1]))
	}
	zw.Close()
	os.WriteFile(p, buf.Bytes(), 0o644)
	// list-sheets reads every part to its end, where the checksum is
	// checked (a value stream may stop at </sheetData>, before it).
	out := mustCall(t, "list-sheets", map[string]any{"path": p})
	msg, _ := out["sheets"].([]any)[0].(map[string]any)["error"].(string)
	if !strings.Contains(msg, "invalid_workbook") || !strings.Contains(msg, "corrupt") {
		t.Errorf("sheet error = %q, want invalid_workbook saying the data is corrupt", msg)
	}
}

func deflate(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("x")
	w.Write(b)
	zw.Close()
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.File[0].OpenRaw()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	out.ReadFrom(rc)
	return out.Bytes()
}

func TestZipBombs(t *testing.T) {
	dir := allowDir(t)
	// 16 MiB of whitespace inside a valid sheet: compresses over 1000:1.
	bomb := []byte(sheetHead + `<sheetData>` + strings.Repeat(" ", 16<<20) + `</sheetData></worksheet>`)
	small := []byte(sheetHead + `<sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData></worksheet>`)
	tests := []struct {
		name     string
		sheet    []byte
		declared uint64
		code     sdk.Code
		message  string
	}{
		{"ratio over the limit", bomb, uint64(len(bomb)), codeWorkbookTooLarge, "zip bomb"},
		{"declared size over the limit", small, 5 << 30, codeWorkbookTooLarge, "over the"},
		{"more data than declared", bomb, 1 << 20, codeInvalidWorkbook, "xl/worksheets/sheet1.xml"},
	}
	deflated := map[*byte][]byte{}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, fmt.Sprintf("bomb%d.xlsx", i))
			if deflated[&tc.sheet[0]] == nil {
				deflated[&tc.sheet[0]] = deflate(t, tc.sheet)
			}
			rawZip(t, p, tc.sheet, deflated[&tc.sheet[0]], tc.declared)
			_, e := call(t, "read-sheet", map[string]any{"path": p})
			if e == nil || e.Code != tc.code || !strings.Contains(e.Message, tc.message) {
				t.Errorf("got %v, want %s containing %q", e, tc.code, tc.message)
			}
		})
	}
}

func TestPathsOutsideRoots(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	inside, outside, second := filepath.Join(base, "in"), filepath.Join(base, "out"), filepath.Join(base, "second")
	for _, d := range []string{inside, outside, second} {
		os.Mkdir(d, 0o755)
	}
	t.Setenv(rootsEnv, inside+string(os.PathListSeparator)+second)
	src := sampleXLSXIn(t, outside)
	ok1 := sampleXLSXIn(t, inside)
	ok2 := sampleXLSXIn(t, second)
	link := filepath.Join(inside, "link.xlsx")
	if err := os.Symlink(src, link); err != nil {
		t.Fatal(err)
	}
	dirLink := filepath.Join(inside, "escape")
	if err := os.Symlink(outside, dirLink); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		code       sdk.Code
	}{
		{"outside", src, codePathNotAllowed},
		{"symlink to outside", link, codePathNotAllowed},
		{"through a symlinked folder", filepath.Join(dirLink, "sample.xlsx"), codePathNotAllowed},
		{"dot-dot out", filepath.Join(inside, "..", "out", "sample.xlsx"), codePathNotAllowed},
		{"missing outside", filepath.Join(outside, "nope.xlsx"), codePathNotAllowed},
		{"inside", ok1, ""},
		{"second root", ok2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, e := call(t, "list-sheets", map[string]any{"path": tc.path})
			switch {
			case tc.code == "" && e != nil:
				t.Errorf("got %v, want a result", e)
			case tc.code != "" && (e == nil || e.Code != tc.code):
				t.Errorf("got %v, want %s", e, tc.code)
			}
		})
	}
	t.Run("default roots are home and working directory", func(t *testing.T) {
		t.Setenv(rootsEnv, "")
		t.Setenv("HOME", inside)
		if _, e := call(t, "list-sheets", map[string]any{"path": ok1}); e != nil {
			t.Errorf("file under HOME: %v", e)
		}
		if _, e := call(t, "list-sheets", map[string]any{"path": ok2}); e == nil || e.Code != codePathNotAllowed {
			t.Errorf("file outside HOME and the working directory: got %v, want path_not_allowed", e)
		}
	})
}

func sampleXLSXIn(t *testing.T, dir string) string {
	t.Helper()
	old := os.Getenv(rootsEnv)
	p := sampleXLSX(t)
	t.Setenv(rootsEnv, old)
	dst := filepath.Join(dir, "sample.xlsx")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestPackageQuirks(t *testing.T) {
	dir := allowDir(t)
	sheet := sheetHead + `<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>ok</t></is></c></row></sheetData></worksheet>`
	parts := minimalParts(sheet)
	tests := []struct {
		name string
		edit func(parts [][2]string) [][2]string
	}{
		{"declared windows-1252", func(p [][2]string) [][2]string {
			p[2][1] = strings.Replace(p[2][1], `<?xml version="1.0"?>`, `<?xml version="1.0" encoding="windows-1252"?>`, 1)
			return p
		}},
		{"byte order marks", func(p [][2]string) [][2]string {
			p[2][1] = "\ufeff" + p[2][1]
			p[4][1] = "\ufeff" + p[4][1]
			return p
		}},
		{"escaped target and odd case", func(p [][2]string) [][2]string {
			p[3][1] = strings.Replace(p[3][1], "worksheets/sheet1.xml", "Worksheets/My%20Sheet.xml", 1)
			p[4][0] = "xl/worksheets/my sheet.xml"
			return p
		}},
		{"absolute target", func(p [][2]string) [][2]string {
			p[3][1] = strings.Replace(p[3][1], `Target="worksheets/sheet1.xml"`, `Target="/xl/worksheets/sheet1.xml"`, 1)
			return p
		}},
		{"no package rels", func(p [][2]string) [][2]string { return append(p[:1], p[2:]...) }},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, fmt.Sprintf("quirk%d.xlsx", i))
			cp := make([][2]string, len(parts))
			copy(cp, parts)
			writeZip(t, p, tc.edit(cp))
			out, e := call(t, "read-sheet", map[string]any{"path": p})
			if e != nil {
				t.Fatal(e)
			}
			if got := toJSON(out["rows"]); got != `[["ok"]]` {
				t.Errorf("rows = %s", got)
			}
		})
	}
}
