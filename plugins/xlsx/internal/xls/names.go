package xls

import (
	"encoding/binary"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/ptg"
)

// builtinNames are the names of Excel's built-in defined names, by the
// one-character code a NAME record gives them.
var builtinNames = [...]string{"Consolidate_Area", "Auto_Open", "Auto_Close", "Extract", "Database", "Criteria", "Print_Area", "Print_Titles", "Recorder", "Data_Form", "Auto_Activate", "Auto_Deactivate", "Sheet_Title", "_FilterDatabase"}

// readName reads a BIFF8 NAME record's name ("" when it cannot).
func readName(body []byte) string {
	if len(body) < 15 {
		return ""
	}
	builtin, cch := body[0]&0x20 != 0, int(body[3])
	s, _, ok := ptg.Chars(body[14:], cch)
	if !ok {
		return ""
	}
	if builtin && len(s) == 1 && int(s[0]) < len(builtinNames) {
		return "_xlnm." + builtinNames[s[0]]
	}
	return s
}

// readSupBook reads what a SUPBOOK record points to.
func readSupBook(body []byte) ptg.SupBook {
	if len(body) == 4 {
		switch binary.LittleEndian.Uint16(body[2:]) {
		case 0x0401:
			return ptg.Self
		case 0x3A01:
			return ptg.AddIn
		}
	}
	return ptg.External
}

// readExternName reads a BIFF8 EXTERNNAME record's name.
func readExternName(body []byte) string {
	if len(body) < 8 {
		return ""
	}
	s, _, ok := ptg.Chars(body[7:], int(body[6]))
	if !ok {
		return ""
	}
	return s
}

// readExternSheet reads a BIFF8 EXTERNSHEET record's entries.
func readExternSheet(body []byte) []ptg.XTI {
	if len(body) < 2 {
		return nil
	}
	k := int(binary.LittleEndian.Uint16(body))
	var out []ptg.XTI
	for j := 0; j < k && 2+6*j+6 <= len(body); j++ {
		e := body[2+6*j:]
		out = append(out, ptg.XTI{Book: int(binary.LittleEndian.Uint16(e)), First: int(int16(binary.LittleEndian.Uint16(e[2:]))), Last: int(int16(binary.LittleEndian.Uint16(e[4:])))})
	}
	return out
}
