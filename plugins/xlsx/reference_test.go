package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolhost/toolhost/sdk"
	"gopkg.in/yaml.v3"
)

// The reference tool's test_xlsx.py, case by case.

func TestListSheets(t *testing.T) {
	p := sampleXLSX(t)
	out := mustCall(t, "list-sheets", map[string]any{"path": p})
	sheets := out["sheets"].([]any)
	var titles []string
	for _, s := range sheets {
		titles = append(titles, s.(map[string]any)["title"].(string))
	}
	if diff := cmp.Diff([]string{"Data", "Empty"}, titles); diff != "" {
		t.Errorf("titles (-want +got):\n%s", diff)
	}
	data := sheets[0].(map[string]any)
	want := map[string]any{"title": "Data", "type": "worksheet", "state": "visible",
		"rows": "4", "columns": "3", "data_rows": "3", "used_range": "A1:C4"}
	for k, v := range want {
		if got := jsonString(data[k]); got != v {
			t.Errorf("Data %s = %s, want %s", k, got, v)
		}
	}
}

// jsonString renders a decoded JSON value for comparison: strings as
// themselves, numbers and the rest as JSON, nil as "<nil>".
func jsonString(v any) string {
	switch x := v.(type) {
	case nil:
		return "<nil>"
	case string:
		return x
	default:
		return toJSON(v)
	}
}

func TestReadSheetSkipsEmptyAndTrims(t *testing.T) {
	p := sampleXLSX(t)
	out := mustCall(t, "read-sheet", map[string]any{"path": p, "sheet": "Data"})
	if out["sheet"] != "Data" {
		t.Errorf("sheet = %v, want Data", out["sheet"])
	}
	want := `[["Item","Cost","Notă"],["Hosting",1200,"lunară"],["Support",800,"ăîâșț"]]`
	if got := toJSON(out["rows"]); got != want {
		t.Errorf("rows = %s, want %s", got, want)
	}
	if out["truncated"] != false {
		t.Errorf("truncated = %v, want false", out["truncated"])
	}
	if _, ok := out["next_offset"]; ok {
		t.Errorf("next_offset present on an untruncated result")
	}
}

func TestReadSheetDefaultFirst(t *testing.T) {
	p := sampleXLSX(t)
	out := mustCall(t, "read-sheet", map[string]any{"path": p})
	if out["sheet"] != "Data" {
		t.Errorf("sheet = %v, want Data", out["sheet"])
	}
}

func TestReadSheetMaxResults(t *testing.T) {
	p := sampleXLSX(t)
	tests := []struct {
		max, offset int
		rows        string
		truncated   bool
		next        string
	}{
		{1, 0, `[["Item","Cost","Notă"]]`, true, "1"},
		{2, 1, `[["Hosting",1200,"lunară"],["Support",800,"ăîâșț"]]`, false, ""},
		{1, 2, `[["Support",800,"ăîâșț"]]`, false, ""},
		{5, 3, `[]`, false, ""},
	}
	for _, tc := range tests {
		out := mustCall(t, "read-sheet", map[string]any{"path": p, "sheet": "Data", "max-results": tc.max, "offset": tc.offset})
		if got := toJSON(out["rows"]); got != tc.rows {
			t.Errorf("max %d offset %d: rows = %s, want %s", tc.max, tc.offset, got, tc.rows)
		}
		if out["truncated"] != tc.truncated {
			t.Errorf("max %d offset %d: truncated = %v, want %v", tc.max, tc.offset, out["truncated"], tc.truncated)
		}
		if got := jsonString(out["next_offset"]); tc.next != "" && got != tc.next {
			t.Errorf("max %d offset %d: next_offset = %s, want %s", tc.max, tc.offset, got, tc.next)
		}
	}
}

func TestReadSheetKeepEmptyRows(t *testing.T) {
	p := sampleXLSX(t)
	out := mustCall(t, "read-sheet", map[string]any{"path": p, "sheet": "Data", "skip-empty": false})
	want := `[["Item","Cost","Notă"],["Hosting",1200,"lunară"],[],["Support",800,"ăîâșț"]]`
	if got := toJSON(out["rows"]); got != want {
		t.Errorf("rows = %s, want %s", got, want)
	}
}

func TestReadEmptySheet(t *testing.T) {
	p := sampleXLSX(t)
	out := mustCall(t, "read-sheet", map[string]any{"path": p, "sheet": "Empty"})
	if got := toJSON(out["rows"]); got != "[]" {
		t.Errorf("rows = %s, want []", got)
	}
}

func TestDumpText(t *testing.T) {
	p := sampleXLSX(t)
	out := mustCall(t, "dump", map[string]any{"path": p})
	text := out["text"].(string)
	for _, want := range []string{"SHEET: Data", "Hosting | 1200 | lunară", "ăîâșț",
		"### SHEETS: ['Data', 'Empty']", "r4: Support | 800 | ăîâșț", "===== SHEET: Empty  (dims A1:A1) =====\n(empty)"} {
		if !strings.Contains(text, want) {
			t.Errorf("dump lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "r3:") {
		t.Errorf("dump shows the blank row 3:\n%s", text)
	}
	if got := jsonString(out["characters"]); got != itoa(len([]rune(text))) {
		t.Errorf("characters = %s, want %d", got, len([]rune(text)))
	}
}

func TestMissingFile(t *testing.T) {
	dir := allowDir(t)
	for _, action := range []string{"list-sheets", "read-sheet", "dump"} {
		_, e := call(t, action, map[string]any{"path": filepath.Join(dir, "nope.xlsx")})
		if e == nil || e.Code != sdk.CodeNotFound {
			t.Errorf("%s on a missing file: got %v, want %s", action, e, sdk.CodeNotFound)
		}
	}
}

func TestWrongExtension(t *testing.T) {
	dir := allowDir(t)
	p := filepath.Join(dir, "x.csv")
	if err := os.WriteFile(p, []byte("a,b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, e := call(t, "list-sheets", map[string]any{"path": p})
	if e == nil || e.Code != codeUnsupportedFormat {
		t.Errorf("got %v, want %s", e, codeUnsupportedFormat)
	}
}

// --- dispatch ---------------------------------------------------------------

func TestDispatchListSheets(t *testing.T) {
	p := sampleXLSX(t)
	out := mustCall(t, "list-sheets", map[string]any{"path": p})
	if got := toJSON(out["path"]); got != toJSON(p) {
		t.Errorf("path = %s, want %s", got, p)
	}
}

func TestDispatchReadSheet(t *testing.T) {
	p := sampleXLSX(t)
	out := mustCall(t, "read-sheet", map[string]any{"path": p, "sheet": "Data"})
	if got := toJSON(out["rows"].([]any)[0]); got != `["Item","Cost","Notă"]` {
		t.Errorf("first row = %s", got)
	}
}

func TestDispatchDumpSave(t *testing.T) {
	p := sampleXLSX(t)
	dest := filepath.Join(filepath.Dir(p), "dump.txt")
	out := mustCall(t, "dump", map[string]any{"path": p, "save": dest})
	b, err := os.ReadFile(dest)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "SHEET:"); n != 2 {
		t.Errorf("saved dump has %d sheet headers, want 2", n)
	}
	if out["saved_to"] != dest {
		t.Errorf("saved_to = %v, want %s", out["saved_to"], dest)
	}
	if _, ok := out["text"]; ok {
		t.Errorf("a saved dump also returned its text")
	}
}

func TestDispatchUnknownAction(t *testing.T) {
	if _, ok := actions()["nope"]; ok {
		t.Fatal("actions() answers an unknown action")
	}
}

func TestDispatchMissingRequiredArg(t *testing.T) {
	allowDir(t)
	for _, action := range []string{"list-sheets", "read-sheet", "dump", "read-range", "records", "search", "describe"} {
		_, e := call(t, action, map[string]any{})
		if e == nil || e.Code != sdk.CodeInvalidArgs {
			t.Errorf("%s without args: got %v, want invalid_args", action, e)
		}
	}
}

// --- manifest sync ----------------------------------------------------------

func TestManifestSync(t *testing.T) {
	b, err := os.ReadFile("tool.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Name       string   `yaml:"name"`
		Kind       string   `yaml:"kind"`
		Entrypoint string   `yaml:"entrypoint"`
		Env        []string `yaml:"env"`
		Actions    []struct {
			Name       string   `yaml:"name"`
			ReadOnly   bool     `yaml:"read_only"`
			Reversible bool     `yaml:"reversible"`
			NarrowWith []string `yaml:"narrow_with"`
			Args       []struct {
				Name string `yaml:"name"`
			} `yaml:"args"`
		} `yaml:"actions"`
	}
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Name != "xlsx" || m.Kind != "tool" || m.Entrypoint != "xlsx" || !slices.Contains(m.Env, rootsEnv) {
		t.Errorf("manifest header: name %q kind %q entrypoint %q env %v", m.Name, m.Kind, m.Entrypoint, m.Env)
	}
	var names []string
	for _, a := range m.Actions {
		names = append(names, a.Name)
		if !a.Reversible {
			t.Errorf("%s: every xlsx action is reversible", a.Name)
		}
		if a.ReadOnly == (a.Name == "dump") {
			t.Errorf("%s: read_only = %v", a.Name, a.ReadOnly)
		}
		if len(a.NarrowWith) == 0 {
			t.Errorf("%s: no narrow_with", a.Name)
		}
		var args []string
		for _, g := range a.Args {
			args = append(args, g.Name)
		}
		for _, n := range a.NarrowWith {
			if !slices.Contains(args, n) {
				t.Errorf("%s: narrow_with names %q, not an arg", a.Name, n)
			}
		}
	}
	var impl []string
	for n := range actions() {
		impl = append(impl, n)
	}
	slices.Sort(names)
	slices.Sort(impl)
	if diff := cmp.Diff(names, impl); diff != "" {
		t.Errorf("tool.yaml actions vs handlers (-manifest +binary):\n%s", diff)
	}
}
