package main

import (
	"path/filepath"
	"testing"
)

// TestComputedValuesAreStyled: a computed number takes its cell's number
// format as a cached one does (a date format makes it a date), and every
// reading action computes, with records naming the reason for what it
// cannot.
func TestComputedValuesAreStyled(t *testing.T) {
	dir, err := filepath.Abs("testdata/formulas")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(rootsEnv, dir)
	book := filepath.Join(dir, "engine.xlsx")
	tests := []struct {
		action string
		args   map[string]any
		key    string
		want   string
	}{
		{"read-range", map[string]any{"range": "A15:B15"}, "rows", `[["2020-01-31T12:00:00"]]`},
		{"read-range", map[string]any{"range": "B1:B2"}, "rows", `[["2024-02-29T00:00:00"],["2024-03-01T00:00:00"]]`},
		{"read-range", map[string]any{"range": "A12:A13", "formulas": true}, "rows",
			`[[{"cached":false,"computed":false,"formula":"=FOO(1)","reason":"uses the function FOO, which is not computed here","value":null}],` +
				`[{"cached":false,"computed":true,"formula":"=SUM(A1:A2)+IF(A1\u003e0,1,NOVEL(2))","value":4}]]`},
		{"search", map[string]any{"query": "50"}, "matches", `[{"cell":"A7","column":1,"row":7,"sheet":"Sheet1","value":50}]`},
		{"read-sheet", nil, "computed_formulas", `9`},
		{"read-sheet", nil, "uncached_formulas", `6`},
	}
	for _, tt := range tests {
		t.Run(tt.action, func(t *testing.T) {
			args := map[string]any{"path": book}
			for k, v := range tt.args {
				args[k] = v
			}
			got, e := call(t, tt.action, args)
			if e != nil {
				t.Fatalf("%s: %v", tt.action, e)
			}
			if s := toJSON(got[tt.key]); s != tt.want {
				t.Errorf("%s %s:\n got  %s\n want %s", tt.action, tt.key, s, tt.want)
			}
		})
	}
}

// TestDescribeTypesComputedValues: describe types a column of formulas
// without cached values by what they compute.
func TestDescribeTypesComputedValues(t *testing.T) {
	dir, err := filepath.Abs("testdata/formulas")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(rootsEnv, dir)
	got, e := call(t, "describe", map[string]any{"path": filepath.Join(dir, "engine.xlsx")})
	if e != nil {
		t.Fatal(e)
	}
	a := got["columns"].([]any)[0].(map[string]any)
	if s := toJSON(a["types"]); s != `{"datetime":1,"error":1,"integer":5,"string":1}` {
		t.Errorf("column A's types: got %s, want the computed values' (5 integers, a date, a text, an error)", s)
	}
}
