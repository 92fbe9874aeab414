package ptg

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestFormulaTokensDecompileToExcelText(t *testing.T) {
	n := &Names{
		Names:     []string{"Total"},
		Tabs:      []string{"Sheet1", "My sheet", "A1"},
		SupBooks:  []SupBook{Self, External},
		Externals: []XTI{{0, 1, 1}, {1, 0, 0}, {0, 0, 2}, {0, 2, 2}},
	}
	ref := func(ptg byte, r, c uint16) []byte { return []byte{ptg, byte(r), byte(r >> 8), byte(c), byte(c >> 8)} }
	rel := uint16(0xC000)
	cat := func(b ...[]byte) []byte { return bytes.Join(b, nil) }
	for _, tc := range []struct {
		name      string
		rgce      []byte
		extra     []byte
		want, why string
	}{
		{"relative ref", ref(0x44, 0, 2|rel), nil, "=C1", ""},
		{"absolute ref", ref(0x24, 4, 0), nil, "=$A$5", ""},
		{"sum of an area", cat([]byte{0x25, 0, 0, 2, 0, 0, 0xC0, 0, 0xC0}, []byte{0x19, 0x10, 0, 0}), nil, "=SUM(A1:A3)", ""},
		{"whole column", []byte{0x25, 0, 0, 0xFF, 0xFF, 1, 0xC0, 1, 0xC0}, nil, "=B:B", ""},
		{"shared relative ref", ref(0x4C, 0xFFFF, 1|rel), nil, "=C9", ""}, // at row 10, column B: one up, one right
		{"string, number, operator", cat([]byte{0x17, 2, 0, 'a', '"'}, []byte{0x1F, 0, 0, 0, 0, 0, 0, 0xF8, 0x3F}, []byte{0x08}), nil, `="a"""&1.5`, ""},
		{"fixed function", cat(ref(0x24, 0, 0), []byte{0x41, 24, 0}), nil, "=ABS($A$1)", ""},
		{"variable function", cat([]byte{0x1E, 1, 0, 0x1E, 2, 0, 0x22, 2, 4, 0}), nil, "=SUM(1,2)", ""},
		{"defined name", []byte{0x23, 1, 0, 0, 0}, nil, "=Total", ""},
		{"3-D ref quoted", []byte{0x3A, 0, 0, 0, 0, 0, 0}, nil, "='My sheet'!$A$1", ""},
		{"3-D span", []byte{0x3A, 2, 0, 0, 0, 0, 0}, nil, "='Sheet1:A1'!$A$1", ""},
		{"sheet named like a cell", []byte{0x3A, 3, 0, 0, 0, 0, 0}, nil, "='A1'!$A$1", ""},
		{"array constant", []byte{0x60, 0, 0, 0, 0, 0, 0, 0}, cat([]byte{1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 2, 1, 0, 0, 'x'}), `={1,"x"}`, ""},
		{"other workbook", []byte{0x3A, 1, 0, 0, 0, 0, 0}, nil, "", "another workbook"},
		{"unknown name", []byte{0x23, 9, 0, 0, 0}, nil, "", "defined name 9"},
		{"cut short", []byte{0x24, 0}, nil, "", "cut short"},
		{"operator without operands", []byte{0x03}, nil, "", "malformed"},
		{"macro command", []byte{0x22, 0, 1, 0x80}, nil, "", "macro command"},
		{"extended token", []byte{0x18, 0}, nil, "", "token 0x18"},
		{"too long", cat([]byte{0x1E, 1, 0}, bytes.Repeat([]byte{0x15}, 5000)), nil, "", "8,192"},
		{"too many operands", bytes.Repeat([]byte{0x16}, 9000), nil, "", "more operands"},
		{"too many tokens", bytes.Repeat([]byte{0x16}, 1<<16+1), nil, "", "longer than any formula"},
	} {
		got, err := n.Decompile(tc.rgce, tc.extra, 9, 1)
		var nt noText
		switch {
		case tc.why == "" && (err != nil || got != tc.want):
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		case tc.why != "" && (!errors.As(err, &nt) || !strings.Contains(err.Error(), tc.why) || got != ""):
			t.Errorf("%s: %q, %v; want no text because %q", tc.name, got, err, tc.why)
		}
	}
}

func TestBIFF12TokensDecompileWithTheirWiderFields(t *testing.T) {
	n := &Names{BIFF12: true, Tabs: []string{"S"}, SupBooks: []SupBook{Self}, Externals: []XTI{{0, 0, 0}}}
	for _, tc := range []struct {
		name      string
		rgce      []byte
		want, why string
	}{
		{"ref of a 4-byte row", []byte{0x24, 0x10, 0x27, 0, 0, 0x02, 0xC0}, "=C10001", ""},
		{"area to the last row", []byte{0x25, 0, 0, 0, 0, 0xFF, 0xFF, 0x0F, 0, 0, 0x80, 0, 0x80}, "=$A:$A", ""},
		{"shared ref to the left", []byte{0x4C, 0, 0, 0, 0, 0xF8, 0xFF}, "=B1", ""}, // 8 columns left of J1
		{"wide string", []byte{0x17, 2, 0, 'h', 0, 'i', 0}, `="hi"`, ""},
		{"3-D area", []byte{0x3B, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0xC0, 1, 0xC0}, "=S!A1:B2", ""},
		{"Analysis ToolPak function", []byte{0x1E, 10, 0, 0x41, 0x80, 0x01}, "=HEX2BIN(10)", ""},
		{"function index not known", []byte{0x1E, 1, 0, 0x41, 0xA7, 0x01}, "", "function number 423"},
		{"array constant", []byte{0x60, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, "", "array constant"},
	} {
		got, err := n.Decompile(tc.rgce, nil, 0, 9)
		switch {
		case tc.why == "" && (err != nil || got != tc.want):
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		case tc.why != "" && (err == nil || !strings.Contains(err.Error(), tc.why) || got != ""):
			t.Errorf("%s: %q, %v; want no text because %q", tc.name, got, err, tc.why)
		}
	}
}

// FuzzDecompile: any tokens in either format give a text starting with =
// or no text with a reason (NoText), never a panic.
func FuzzDecompile(f *testing.F) {
	f.Add([]byte{0x24, 0, 0, 0, 0xC0}, []byte{}, false)
	f.Add([]byte{0x60, 0, 0, 0, 0, 0, 0, 0}, []byte{1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F, 2, 1, 0, 0, 'x'}, false)
	f.Add([]byte{0x17, 2, 0, 'h', 0, 'i', 0}, []byte{}, true)
	f.Add([]byte{0x26, 0, 0, 0, 0, 6, 0, 0x25, 0, 0, 0, 0, 0, 0, 0, 0}, []byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0}, false)
	n8 := &Names{Names: []string{"N"}, Tabs: []string{"S"}, SupBooks: []SupBook{Self, AddIn}, ExtNames: [][]string{nil, {"F"}}, Externals: []XTI{{0, 0, 0}, {1, 0, 0}}}
	n12 := *n8
	n12.BIFF12 = true
	f.Fuzz(func(t *testing.T, rgce, extra []byte, biff12 bool) {
		n := n8
		if biff12 {
			n = &n12
		}
		text, err := n.Decompile(rgce, extra, 3, 3)
		var nt NoText
		if err != nil && (!errors.As(err, &nt) || text != "") {
			t.Fatalf("%q, %v: an error that is not a reason", text, err)
		}
		if err == nil && (!strings.HasPrefix(text, "=") || len(text) > 2*maxFormulaText+2) {
			t.Fatalf("text %q", text)
		}
	})
}
