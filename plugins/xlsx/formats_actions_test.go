package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestXLSThroughEveryAction reads real .xls files through the seven
// actions, as an agent would: hidden sheets, merged ranges, errors by
// name, records and describe by header, search and dump.
func TestXLSThroughEveryAction(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join(formatsDir, "xls", "files"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(rootsEnv, dir)
	vis := filepath.Join(dir, "sheetjs__sheet_visibility.xls")
	errs := filepath.Join(dir, "sheetjs__ErrorTypes.xls")
	merged := filepath.Join(dir, "calamine__tests_merge_cells.xls")

	ls := mustCall(t, "list-sheets", map[string]any{"path": vis})
	var states []string
	for _, s := range ls["sheets"].([]any) {
		m := s.(map[string]any)
		states = append(states, m["title"].(string)+"="+m["state"].(string))
	}
	if got := strings.Join(states, ","); got != "Visible=visible,Hidden=hidden,VeryHidden=veryHidden" {
		t.Errorf("list-sheets states: %s", got)
	}
	ls = mustCall(t, "list-sheets", map[string]any{"path": merged})
	if got := toJSON(ls["sheets"].([]any)[0].(map[string]any)["merged_ranges"]); got != "3" {
		t.Errorf("merged ranges: %s, want 3", got)
	}

	rs := mustCall(t, "read-sheet", map[string]any{"path": vis, "sheet": "Hidden"})
	if got := toJSON(rs["rows"]); got != `[["H","i","d","d","e","n"],[72,105,100,100,101,110]]` {
		t.Errorf("read-sheet Hidden: %s", got)
	}
	rr := mustCall(t, "read-range", map[string]any{"path": errs, "range": "A2:E3"})
	if got := toJSON(rr["rows"]); got != `[["#NULL!","#NULL!","#NULL?","#NULL",1],["#DIV/0!","#DIV/0!","#DIV/0?","#DIV/0",2]]` {
		t.Errorf("read-range: %s", got)
	}
	rec := mustCall(t, "records", map[string]any{"path": errs, "max-results": 1})
	r0 := rec["records"].([]any)[0].(map[string]any)
	if r0["Error"] != "#NULL!" || r0["ISERR"] != true {
		t.Errorf("records: %s", toJSON(r0))
	}
	se := mustCall(t, "search", map[string]any{"path": errs, "query": "#N/A"})
	if m := se["matches"].([]any); len(m) == 0 || m[0].(map[string]any)["value"] != "#N/A" {
		t.Errorf("search #N/A: %s", toJSON(se["matches"]))
	}
	de := mustCall(t, "describe", map[string]any{"path": errs})
	if got := toJSON(de["columns"].([]any)[7].(map[string]any)["type"]); got != `"boolean"` {
		t.Errorf("describe ISERR type: %s", got)
	}
	du := mustCall(t, "dump", map[string]any{"path": vis})
	if text := du["text"].(string); !strings.Contains(text, "===== SHEET: VeryHidden") || !strings.Contains(text, "r1: V | e | r | y") {
		t.Errorf("dump: %s", text)
	}
}
