//go:build unix

package tests

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWorkbookBriefProgressOnATerminal: a person running the workbook-brief
// agent's dry run at a terminal sees each of its steps on the one progress
// line (stderr on a pseudo-terminal), and the result after it.
func TestWorkbookBriefProgressOnATerminal(t *testing.T) {
	for _, want := range []string{"xlsx", "notes", "workbook-brief"} {
		if !slices.Contains(realPluginNames, want) {
			t.Fatalf("plugin %s did not build", want)
		}
	}
	e, _, _ := realEnv(t)
	dir := t.TempDir()
	book := filepath.Join(dir, "quarterly.xlsx")
	copyFile(t, filepath.Join(repoRoot, "plugins", "xlsx", "testdata", "corpus", "files", briefWorkbook), book)
	vars := append(e.vars[:len(e.vars):len(e.vars)], "XLSX_ROOTS="+dir, "TERM=xterm-256color", "NO_COLOR=1", "HOST_LOG_LEVEL=error")
	r := onTerminal(t, vars, true, hostBin, "call", "workbook-brief", "brief", "--arg", "path="+book, "--arg", "dry-run=true")
	if r.code != 0 {
		t.Fatalf("dry run exit %d:\n%s", r.code, r.screen)
	}
	for _, step := range briefSteps {
		if !strings.Contains(r.screen, step) {
			t.Errorf("the terminal did not show step %q:\n%q", step, r.screen)
		}
	}
	if !strings.Contains(r.screen, "Sheet1") {
		t.Errorf("no result after the progress:\n%s", r.screen)
	}
}
