package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// briefWorkbook is a corpus workbook from excelize's test suite (BSD-3,
// see plugins/xlsx/testdata/corpus/SOURCES.tsv): two sheets, blank and
// value-less headers, a column filled in 4 of 10 rows, and a <dimension>
// that disagrees with its cells.
const briefWorkbook = "excelize__Book1.xlsx"

// briefSteps is the progress the agent reports, step by step, on a dry run
// of briefWorkbook.
var briefSteps = []string{"listing the sheets", "describing Sheet1", "reading the header rows of Sheet1", "describing Sheet2", "reading the header rows of Sheet2", "dry run: nothing written"}

// TestWorkbookBriefAgent: the workbook-brief agent, run through MCP
// run_agent, reads a real workbook with xlsx and writes one synthesis page
// in notes; a second run updates that page; dry-run (through `host call`,
// with its progress per step) writes nothing.
func TestWorkbookBriefAgent(t *testing.T) {
	for _, want := range []string{"xlsx", "notes", "workbook-brief"} {
		if !slices.Contains(realPluginNames, want) {
			t.Fatalf("plugin %s did not build", want)
		}
	}
	e, _, brain := realEnv(t)
	corpus := filepath.Join(repoRoot, "plugins", "xlsx", "testdata", "corpus", "files")
	// The workbook is a copy, so the test can change it under the agent.
	dir := t.TempDir()
	e.vars = append(e.vars, "XLSX_ROOTS="+dir)
	book := filepath.Join(dir, "quarterly.xlsx")
	copyFile(t, filepath.Join(corpus, briefWorkbook), book)
	pages := func() []string {
		files, _ := filepath.Glob(filepath.Join(brain, "wiki", "syntheses", "*.md"))
		return files
	}

	// dry-run at the terminal: the page comes back, progress is shown per
	// step, and notes is never written.
	cmd := exec.Command(hostBin, "call", "workbook-brief", "brief", "--arg", "path="+book, "--arg", "dry-run=true", "--json")
	cmd.Env = e.vars
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("dry run: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	// Piped, progress stays silent (TestWorkbookBriefProgressOnATerminal
	// reads it on a terminal).
	for _, step := range briefSteps {
		if strings.Contains(stderr.String(), step) {
			t.Errorf("piped dry run printed progress %q:\n%s", step, stderr.String())
		}
	}
	var dry struct {
		DryRun    bool   `json:"dry_run"`
		Written   any    `json:"written"`
		NotePath  string `json:"note_path"`
		Anomalies []struct {
			Sheet, Column, Kind string
		} `json:"anomalies"`
	}
	must(t, json.Unmarshal(stdout.Bytes(), &dry))
	if !dry.DryRun || dry.Written != nil || len(pages()) != 0 {
		t.Fatalf("dry run wrote something: %s; pages %v", stdout.String(), pages())
	}
	// What xlsx reports of this workbook, checked by hand against the file
	// (openpyxl's oracle agrees on headers, rows and dimension).
	wantAnomalies := []struct{ Sheet, Column, Kind string }{
		{"Sheet1", "B", "empty_column"},
		{"Sheet1", "C", "blank_header"},
		{"Sheet1", "D", "blank_header"},
		{"Sheet2", "", "stored_size"},
		{"Sheet2", "A", "sparse_column"},
		{"Sheet2", "B", "blank_header"},
		{"Sheet2", "B", "sparse_column"},
		{"Sheet2", "D", "blank_header"},
		// Row 12's formulas in E:I hold no cached value; xlsx computes them
		// (B2+B3 is 43), so the columns are sparse, not empty.
		{"Sheet2", "E", "sparse_column"},
		{"Sheet2", "F", "blank_header"},
		{"Sheet2", "F", "sparse_column"},
		{"Sheet2", "G", "blank_header"},
		{"Sheet2", "G", "sparse_column"},
		{"Sheet2", "H", "blank_header"},
		{"Sheet2", "H", "sparse_column"},
		{"Sheet2", "I", "blank_header"},
		{"Sheet2", "I", "sparse_column"},
	}
	var gotAnomalies []struct{ Sheet, Column, Kind string }
	for _, a := range dry.Anomalies {
		gotAnomalies = append(gotAnomalies, struct{ Sheet, Column, Kind string }{a.Sheet, a.Column, a.Kind})
	}
	if diff := cmp.Diff(wantAnomalies, gotAnomalies); diff != "" {
		t.Errorf("anomalies (-want +got):\n%s", diff)
	}

	// Through MCP: the first run creates the page, the second updates it.
	cs := goClient(t, e, "2025-11-25", nil)
	run := func() map[string]any {
		t.Helper()
		sc, isErr := callTool(t, cs, "run_agent", map[string]any{"agent": "workbook-brief", "action": "brief", "args": map[string]any{"path": book}})
		if isErr {
			t.Fatalf("brief: %v", sc)
		}
		return sc
	}
	first := run()
	if mode := first["written"].(map[string]any)["mode"]; mode != "create" {
		t.Fatalf("first run: got mode %v, want create", mode)
	}
	files := pages()
	if len(files) != 1 || !strings.HasSuffix(files[0], filepath.FromSlash(dry.NotePath)) {
		t.Fatalf("want the one page %s, got %v", dry.NotePath, files)
	}
	page, err := os.ReadFile(files[0])
	must(t, err)
	for _, want := range []string{
		"type: synthesis",
		"# Workbook quarterly.xlsx",
		"| Sheet2 | worksheet | visible | 11 | A1:E11 |",
		"| B | no header | integer | 4 | 19 to 56 |",
		"| C | Brand | string | 10 | \"HP\", \"DELL\", \"Lenove\" |",
		"| > 23 Inch | 19 | HP | 200 |  |",
		"the file says the sheet spans A1:D11, but its values span A1:E11",
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	// Unchanged workbook: the page stays as it is.
	if mode := run()["written"].(map[string]any)["mode"]; mode != "unchanged" {
		t.Fatalf("re-run on the same workbook: got mode %v, want unchanged", mode)
	}
	// A new version of the workbook at the same path (calamine's
	// any_sheets.xlsx, MIT: a hidden, a very hidden and a chart sheet):
	// the same page is updated.
	copyFile(t, filepath.Join(corpus, "calamine__any_sheets.xlsx"), book)
	if mode := run()["written"].(map[string]any)["mode"]; mode != "overwrite" {
		t.Fatalf("re-run on a changed workbook: got mode %v, want overwrite", mode)
	}
	if got := pages(); len(got) != 1 {
		t.Fatalf("a re-run made a second page: %v", got)
	}
	page, err = os.ReadFile(got1(pages()))
	must(t, err)
	for _, want := range []string{"| VeryHidden | worksheet | veryHidden | 0 | - |", "**Hidden** (hidden): the sheet is hidden", "| Chart | chartsheet | visible |"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("updated page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(string(page), "Sheet2") {
		t.Errorf("updated page still describes the old workbook:\n%s", page)
	}
	log, err := exec.Command("git", "-C", brain, "log", "--format=%s", "--", filepath.ToSlash(dry.NotePath)).Output()
	must(t, err)
	if lines := strings.Split(strings.TrimSpace(string(log)), "\n"); len(lines) != 2 || !strings.Contains(lines[0], "update") {
		t.Fatalf("want a create then an update of the page, got:\n%s", log)
	}
}

func got1(files []string) string {
	if len(files) == 0 {
		return ""
	}
	return files[0]
}

// copyFile copies src to dst (replacing it).
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	must(t, err)
	must(t, os.WriteFile(dst, b, 0o644))
}
