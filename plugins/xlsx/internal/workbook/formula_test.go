package workbook

import "testing"

// TestTranslateFormula checks shared-formula translation against openpyxl
// 3.0.9's Translator (Translator("="+f, origin="B2").translate_formula("C4"),
// the values below as it printed them).
func TestTranslateFormula(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SUM(A1:A3)", "SUM(B3:B5)"},
		{"A1*2+$B$1", "B3*2+$B$1"},
		{"Sheet1!A1+'My Sheet'!B2", "Sheet1!B3+'My Sheet'!C4"},
		{`IF(A1>0,"A1",B$2)`, `IF(B3>0,"A1",C$2)`},
		{"SUM(A:A)+SUM(1:1)", "SUM(B:B)+SUM(3:3)"},
		{"LOG10(C3)", "LOG10(D5)"},
		{"$A1+A$1", "$A3+B$1"},
		{"A1-1", "B3-1"},
		{"1.5E3+A1", "1.5E3+B3"},
		{"TRUE", "TRUE"},
	}
	for _, tc := range tests {
		if got := TranslateFormula(tc.in, 2, 1); got != tc.want {
			t.Errorf("TranslateFormula(%q, 2, 1) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := TranslateFormula("A1+B2", -1, 0); got != "#REF!+B1" {
		t.Errorf("moving A1 up: got %q, want #REF!+B1", got)
	}
}
