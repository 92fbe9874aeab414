package ods

import "testing"

func TestOpenFormulaReadsInExcelNotation(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"of:=SUM([.A1:.A3])", "=SUM(A1:A3)"},
		{"of:=[.B2]*2", "=B2*2"},
		{"of:=IF([.A1]>0;\"a;b\";[Sheet2.C3])", `=IF(A1>0,"a;b",Sheet2!C3)`},
		{"of:=SUM([$'My sheet'.A1:.B2])", "=SUM('My sheet'!A1:B2)"},
		{"of:=[.$A$1]", "=$A$1"},
		{"=1+1", "=1+1"},
		{"of:=AREAS(([.B7:.D14]~[.E2]))", "=AREAS((B7:D14,E2))"},
		{"of:=[.B1]+$$OneRange", "=B1+OneRange"},
		{`of:=INDEX({1;2|3;"a|b"};1;2)`, `=INDEX({1,2;3,"a|b"},1,2)`},
		{`of:="$$"&$$N`, `="$$"&N`},
	} {
		if got := ExcelFormula(tc.in); got != tc.want {
			t.Errorf("ExcelFormula(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
