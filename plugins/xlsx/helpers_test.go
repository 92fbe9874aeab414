package main

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/toolhost/toolhost/sdk"
	"github.com/xuri/excelize/v2"
)

// sampleXLSX writes the reference's fixture: a two-sheet workbook with a
// header row, data, a blank row and diacritics. It sets XLSX_ROOTS to the
// test's temporary folder and returns the workbook's path.
func sampleXLSX(t *testing.T) string {
	t.Helper()
	dir := allowDir(t)
	f := excelize.NewFile()
	defer f.Close()
	if err := f.SetSheetName("Sheet1", "Data"); err != nil {
		t.Fatal(err)
	}
	rows := [][]any{
		{"Item", "Cost", "Notă"},
		{"Hosting", 1200, "lunară"},
		{nil, nil, nil},
		{"Support", 800, "ăîâșț"},
	}
	for i, r := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := f.SetSheetRow("Data", cell, &r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.NewSheet("Empty"); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "sample.xlsx")
	if err := f.SaveAs(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// allowDir makes a temporary folder the only allowed root and dump's
// output folder, and returns it with its symlinks resolved.
func allowDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(rootsEnv, dir)
	t.Setenv(outputEnv, dir)
	return dir
}

// call runs an action's handler as the host would and returns its data as
// a client decodes it (numbers as json.Number), or its error envelope.
func call(t *testing.T, action string, args map[string]any) (map[string]any, *sdk.Error) {
	t.Helper()
	return callBudget(t, action, args, 0)
}

func callBudget(t *testing.T, action string, args map[string]any, maxBytes int) (map[string]any, *sdk.Error) {
	t.Helper()
	data, e := callData(t, action, args, maxBytes)
	if e != nil {
		return nil, e
	}
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatalf("%s: marshal result: %v", action, err)
	}
	if maxBytes > 0 && len(b) > maxBytes {
		t.Errorf("%s: result is %d bytes, over the budget of %d", action, len(b), maxBytes)
	}
	return decodeJSON(t, b), nil
}

// callData runs a handler and returns its Data as the handler built it;
// a streamed result is written and its members kept as JSON.
func callData(t *testing.T, action string, args map[string]any, maxBytes int) (any, *sdk.Error) {
	t.Helper()
	h, ok := actions()[action]
	if !ok {
		t.Fatalf("no handler for %q", action)
	}
	req, err := sdk.NewRequestFor(action, args) // checked, with tool.yaml's defaults, as the host sends it
	if err != nil {
		var e *sdk.Error
		if !errors.As(err, &e) {
			t.Fatal(err)
		}
		return nil, e // the host's own answer: the handler never runs
	}
	req.Caller.MaxResultBytes = maxBytes
	res, err := h(context.Background(), req)
	if err != nil {
		var e *sdk.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: error %v is not an *sdk.Error", action, err)
		}
		return nil, e
	}
	if s, ok := res.Data.(*streamed); ok {
		// Written as the SDK writes it; members kept as their JSON, so
		// their key order shows.
		var b bytes.Buffer
		if err := s.WriteJSON(&b); err != nil {
			var e *sdk.Error
			if !errors.As(err, &e) {
				t.Fatalf("%s: error %v is not an *sdk.Error", action, err)
			}
			return nil, e
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b.Bytes(), &m); err != nil {
			t.Fatalf("%s: streamed result is not a JSON object: %v\n%s", action, err, b.Bytes())
		}
		data := map[string]any{}
		for k, v := range m {
			data[k] = v
		}
		return data, nil
	}
	return res.Data, nil
}

func decodeJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return m
}

// mustCall is call that fails the test on an error result.
func mustCall(t *testing.T, action string, args map[string]any) map[string]any {
	t.Helper()
	m, e := call(t, action, args)
	if e != nil {
		t.Fatalf("%s %v: %v", action, args, e)
	}
	return m
}

// writeZip writes a zip package with these parts (in name order as given).
func writeZip(t *testing.T, p string, parts [][2]string) {
	t.Helper()
	writeZipFlushing(t, p, parts, 0)
}

// writeZipFlushing is writeZip with every part deflated in blocks of at
// most flushEvery bytes, each followed by a sync flush (an empty stored
// block), as a writer that flushes often writes them; 0 is one stream.
func writeZipFlushing(t *testing.T, p string, parts [][2]string, flushEvery int) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	if flushEvery > 0 {
		zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
			fw, err := flate.NewWriter(w, flate.DefaultCompression)
			return flushingWriter{fw, flushEvery}, err
		})
	}
	for _, part := range parts {
		w, err := zw.Create(part[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(part[1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// minimalParts returns the parts of a one-sheet workbook whose sheet XML
// is sheetXML.
func minimalParts(sheetXML string) [][2]string {
	return [][2]string{
		{"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`},
		{"_rels/.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`},
		{"xl/workbook.xml", `<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`},
		{"xl/_rels/workbook.xml.rels", `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`},
		{"xl/worksheets/sheet1.xml", sheetXML},
	}
}

const sheetHead = `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "!" + err.Error()
	}
	return string(b)
}

func itoa(n int) string { return strconv.Itoa(n) }

// flushingWriter flushes its flate.Writer after every n bytes.
type flushingWriter struct {
	*flate.Writer
	n int
}

func (w flushingWriter) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		k, err := w.Writer.Write(p[:min(w.n, len(p))])
		written += k
		if err == nil {
			err = w.Flush()
		}
		if err != nil {
			return written, err
		}
		p = p[k:]
	}
	return written, nil
}
