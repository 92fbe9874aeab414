package xls

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

// funcDef is a built-in function: its name and argument counts.
type funcDef struct {
	name   string
	lo, hi int
}

// supBook is what a SUPBOOK record points the references after it to.
type supBook uint8

const (
	supExternal supBook = iota // another workbook, or DDE/OLE
	supSelf                    // this workbook's own sheets
	supAddIn                   // add-in functions (EXTERNNAME)
)

// xti is one EXTERNSHEET entry: a SUPBOOK and a span of its sheets.
type xti struct{ book, first, last int }

// formulaNames are what a BIFF8 formula's tokens refer to beyond cells:
// the workbook's defined names, its sheets (every BOUNDSHEET, in order),
// and the EXTERNSHEET and SUPBOOK tables of 3-D references.
type formulaNames struct {
	names     []string  // NAME records, in order (PtgName is 1-based)
	tabs      []string  // every BOUNDSHEET's name, in order
	supBooks  []supBook // SUPBOOK records, in order
	extNames  [][]string
	externals []xti
}

// noText is the reason a formula has no text: its tokens hold something
// not decompiled here.
type noText string

// decompile turns a BIFF8 formula's parsed tokens (rgce) into the text
// Excel shows (=SUM(A1:A3)), at the cell (row, col), 0-based, which
// relative references of a shared formula (PtgRefN, PtgAreaN) count from;
// extra is the data after the tokens (array constants, in token order).
// A token not decompiled here gives no text and the reason, never a
// wrong text.
func (n *formulaNames) decompile(rgce, extra []byte, row, col int) (string, error) {
	var st []string
	pop := func() (string, error) {
		if len(st) == 0 {
			return "", noText("its tokens are malformed (an operator without an operand)")
		}
		s := st[len(st)-1]
		st = st[:len(st)-1]
		return s, nil
	}
	need := func(i, k int) error {
		if i+k > len(rgce) {
			return noText("its tokens are cut short")
		}
		return nil
	}
	for i := 0; i < len(rgce); {
		if len(st) > 0 && len(st[len(st)-1]) > maxFormulaText {
			return "", noText("its text would be longer than Excel's 8,192 characters")
		}
		ptg := rgce[i]
		i++
		base := ptg
		if ptg >= 0x20 {
			base = ptg&0x1F | 0x20
		}
		switch {
		case base >= 0x03 && base <= 0x11:
			b, err := pop()
			if err != nil {
				return "", err
			}
			a, err := pop()
			if err != nil {
				return "", err
			}
			st = append(st, a+binaryOps[base-0x03]+b)
			continue
		}
		switch base {
		case 0x12, 0x13: // unary plus, minus
			a, err := pop()
			if err != nil {
				return "", err
			}
			st = append(st, string("+-"[base-0x12])+a)
		case 0x14: // percent
			a, err := pop()
			if err != nil {
				return "", err
			}
			st = append(st, a+"%")
		case 0x15: // parentheses
			a, err := pop()
			if err != nil {
				return "", err
			}
			st = append(st, "("+a+")")
		case 0x16: // missing argument
			st = append(st, "")
		case 0x17: // string
			if err := need(i, 2); err != nil {
				return "", err
			}
			s, k, ok := formulaChars(rgce[i+1:], int(rgce[i]))
			if !ok {
				return "", noText("its tokens are cut short")
			}
			i += 1 + k
			st = append(st, `"`+strings.ReplaceAll(s, `"`, `""`)+`"`)
		case 0x19: // attribute: space, volatile, if/choose jumps, SUM of one
			if err := need(i, 3); err != nil {
				return "", err
			}
			flags, w := rgce[i], int(binary.LittleEndian.Uint16(rgce[i+1:]))
			i += 3
			if flags&0x04 != 0 {
				i += 2 * (w + 1)
			}
			if flags&0x10 != 0 {
				a, err := pop()
				if err != nil {
					return "", err
				}
				st = append(st, "SUM("+a+")")
			}
		case 0x1C: // error
			if err := need(i, 1); err != nil {
				return "", err
			}
			st = append(st, workbook.ErrorValue(rgce[i]).Str)
			i++
		case 0x1D: // boolean
			if err := need(i, 1); err != nil {
				return "", err
			}
			st = append(st, map[bool]string{true: "TRUE", false: "FALSE"}[rgce[i] != 0])
			i++
		case 0x1E: // integer
			if err := need(i, 2); err != nil {
				return "", err
			}
			st = append(st, strconv.Itoa(int(binary.LittleEndian.Uint16(rgce[i:]))))
			i += 2
		case 0x1F: // number
			if err := need(i, 8); err != nil {
				return "", err
			}
			st = append(st, formulaNumber(math.Float64frombits(binary.LittleEndian.Uint64(rgce[i:]))))
			i += 8
		case 0x21, 0x22: // function, fixed or variable argument count
			var argc int
			var idx uint16
			if base == 0x21 {
				if err := need(i, 2); err != nil {
					return "", err
				}
				idx = binary.LittleEndian.Uint16(rgce[i:])
				i += 2
			} else {
				if err := need(i, 3); err != nil {
					return "", err
				}
				argc, idx = int(rgce[i]&0x7F), binary.LittleEndian.Uint16(rgce[i+1:])
				i += 3
			}
			if idx&0x8000 != 0 {
				return "", noText("it calls an Excel 4 macro command")
			}
			def, ok := ftab[idx]
			if !ok && idx != 255 {
				return "", noText(fmt.Sprintf("it calls the built-in function number %d, not in the function table", idx))
			}
			if base == 0x21 {
				if def.lo != def.hi {
					return "", noText(fmt.Sprintf("its function %s has no fixed argument count", def.name))
				}
				argc = def.lo
			}
			if argc > len(st) {
				return "", noText("its tokens are malformed (a function without its arguments)")
			}
			args := st[len(st)-argc:]
			st = st[:len(st)-argc]
			name := def.name
			if idx == 255 {
				// A user-defined or add-in function: its name is the
				// first argument.
				if argc == 0 {
					return "", noText("its tokens are malformed (a user-defined function without a name)")
				}
				name, args = args[0], args[1:]
			}
			st = append(st, name+"("+strings.Join(args, ",")+")")
		case 0x23: // defined name
			if err := need(i, 4); err != nil {
				return "", err
			}
			k := int(binary.LittleEndian.Uint32(rgce[i:]))
			i += 4
			if k < 1 || k > len(n.names) || n.names[k-1] == "" {
				return "", noText(fmt.Sprintf("it refers to defined name %d, which the workbook does not define", k))
			}
			st = append(st, n.names[k-1])
		case 0x24, 0x2C: // cell reference; relative to the cell (shared)
			if err := need(i, 4); err != nil {
				return "", err
			}
			st = append(st, cellRef(rgce[i:], row, col, base == 0x2C))
			i += 4
		case 0x25, 0x2D: // area; relative to the cell (shared)
			if err := need(i, 8); err != nil {
				return "", err
			}
			st = append(st, areaRef(rgce[i:], row, col, base == 0x2D))
			i += 8
		case 0x26: // a subexpression's size, and its areas after the tokens
			i += 6
			if len(extra) < 2 || 2+8*int(binary.LittleEndian.Uint16(extra)) > len(extra) {
				return "", noText("its tokens' data is cut short")
			}
			extra = extra[2+8*int(binary.LittleEndian.Uint16(extra)):]
		case 0x27, 0x28: // the size of a subexpression: skipped
			i += 6
		case 0x29:
			i += 2
		case 0x2A:
			st = append(st, "#REF!")
			i += 4
		case 0x2B:
			st = append(st, "#REF!")
			i += 8
		case 0x39: // external name: an add-in function's name
			if err := need(i, 6); err != nil {
				return "", err
			}
			ixti, k := int(binary.LittleEndian.Uint16(rgce[i:])), int(binary.LittleEndian.Uint16(rgce[i+2:]))
			i += 6
			s, err := n.externalName(ixti, k)
			if err != nil {
				return "", err
			}
			st = append(st, s)
		case 0x3A, 0x3B, 0x3C, 0x3D: // 3-D reference, area, and their #REF! forms
			size := 6
			if base == 0x3B || base == 0x3D {
				size = 10
			}
			if err := need(i, size); err != nil {
				return "", err
			}
			sheet, err := n.sheetPrefix(int(binary.LittleEndian.Uint16(rgce[i:])))
			if err != nil {
				return "", err
			}
			switch base {
			case 0x3A:
				st = append(st, sheet+cellRef(rgce[i+2:], row, col, false))
			case 0x3B:
				st = append(st, sheet+areaRef(rgce[i+2:], row, col, false))
			default:
				st = append(st, sheet+"#REF!")
			}
			i += size
		case 0x01:
			return "", noText("it is part of a shared or array formula whose definition was not found")
		case 0x02:
			return "", noText("it is a data table (TABLE), which has no formula text")
		case 0x20: // an array constant, its values after the tokens
			i += 7
			s, rest, err := arrayConstant(extra)
			if err != nil {
				return "", err
			}
			extra = rest
			st = append(st, s)
		default:
			return "", noText(fmt.Sprintf("it holds formula token 0x%02X, not decompiled here", ptg))
		}
	}
	if len(st) != 1 {
		return "", noText("its tokens are malformed (they leave no single expression)")
	}
	return "=" + st[0], nil
}

func (e noText) Error() string { return string(e) }

// maxFormulaText is the longest formula text Excel writes: tokens that
// would decompile longer are a crafted file, and stop.
const maxFormulaText = 8192

// arrayConstant reads an array constant ({1,2;3,4}) from the data after a
// formula's tokens, returning the rest.
func arrayConstant(b []byte) (string, []byte, error) {
	short := noText("its array constant is cut short")
	if len(b) < 3 {
		return "", nil, short
	}
	cols, rows := int(b[0])+1, int(binary.LittleEndian.Uint16(b[1:]))+1
	b = b[3:]
	var sb strings.Builder
	sb.WriteByte('{')
	for r := range rows {
		if r > 0 {
			sb.WriteByte(';')
		}
		for c := range cols {
			if c > 0 {
				sb.WriteByte(',')
			}
			if len(b) < 1 {
				return "", nil, short
			}
			typ := b[0]
			b = b[1:]
			switch typ {
			case 0x02:
				if len(b) < 2 {
					return "", nil, short
				}
				s, k, ok := formulaChars(b[2:], int(binary.LittleEndian.Uint16(b)))
				if !ok {
					return "", nil, short
				}
				b = b[2+k:]
				sb.WriteString(`"` + strings.ReplaceAll(s, `"`, `""`) + `"`)
				continue
			case 0x00, 0x01, 0x04, 0x10:
			default:
				return "", nil, noText(fmt.Sprintf("its array constant holds a value of type 0x%02X", typ))
			}
			if len(b) < 8 {
				return "", nil, short
			}
			switch typ {
			case 0x01:
				sb.WriteString(formulaNumber(math.Float64frombits(binary.LittleEndian.Uint64(b))))
			case 0x04:
				sb.WriteString(map[bool]string{true: "TRUE", false: "FALSE"}[b[0] != 0])
			case 0x10:
				sb.WriteString(workbook.ErrorValue(b[0]).Str)
			}
			b = b[8:]
		}
	}
	sb.WriteByte('}')
	return sb.String(), b, nil
}

// formulaNumber writes a number as Excel shows it in a formula: plain
// digits, or 1E+100 beyond what fifteen digits show.
func formulaNumber(x float64) string {
	if a := math.Abs(x); a == 0 || (a >= 1e-9 && a < 1e15) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'E', -1, 64)
}

var binaryOps = [...]string{"+", "-", "*", "/", "^", "&", "<", "<=", "=", ">=", ">", "<>", " ", ",", ":"}

// formulaChars reads a string of cch characters after its flags byte (bit
// 0: two bytes a character), returning the bytes used.
func formulaChars(b []byte, cch int) (string, int, bool) {
	if len(b) < 1 {
		return "", 0, false
	}
	wide := b[0]&1 != 0
	if !wide {
		if 1+cch > len(b) {
			return "", 0, false
		}
		r := make([]rune, cch)
		for j := range cch {
			r[j] = rune(b[1+j])
		}
		return string(r), 1 + cch, true
	}
	if 1+2*cch > len(b) {
		return "", 0, false
	}
	u := make([]uint16, cch)
	for j := range cch {
		u[j] = binary.LittleEndian.Uint16(b[1+2*j:])
	}
	return string(utf16.Decode(u)), 1 + 2*cch, true
}

// cellRef writes a BIFF8 cell reference (row u16, column u16 whose bits
// 14 and 15 mark the column and row relative) in A1 notation; rel reads a
// relative row and column as offsets from (row, col).
func cellRef(b []byte, row, col int, rel bool) string {
	r, c := int(binary.LittleEndian.Uint16(b)), int(binary.LittleEndian.Uint16(b[2:]))
	return a1(r, c, row, col, rel)
}

func areaRef(b []byte, row, col int, rel bool) string {
	r0, r1 := int(binary.LittleEndian.Uint16(b)), int(binary.LittleEndian.Uint16(b[2:]))
	c0, c1 := int(binary.LittleEndian.Uint16(b[4:])), int(binary.LittleEndian.Uint16(b[6:]))
	// A whole column (rows 1 to 65,536) or a whole row (columns A to IV)
	// is written as Excel shows it: A:A, 1:1.
	if r0 == 0 && r1 == 0xFFFF && c0&0x8000 == c1&0x8000 {
		return colPart(c0, col, rel) + ":" + colPart(c1, col, rel)
	}
	if c0&0xFF == 0 && c1&0xFF == 0xFF && c0&0x4000 == c1&0x4000 {
		return rowPart(r0, c0, row, rel) + ":" + rowPart(r1, c1, row, rel)
	}
	return a1(r0, c0, row, col, rel) + ":" + a1(r1, c1, row, col, rel)
}

func a1(r, c, row, col int, rel bool) string {
	return colPart(c, col, rel) + rowPart(r, c, row, rel)
}

func colPart(c, col int, rel bool) string {
	if c&0x4000 == 0 {
		return "$" + workbook.ColumnName(c&0xFF+1)
	}
	x := c & 0xFF
	if rel {
		x = (col + int(int8(c&0xFF))) & 0xFF
	}
	return workbook.ColumnName(x + 1)
}

func rowPart(r, c, row int, rel bool) string {
	if c&0x8000 == 0 {
		return "$" + strconv.Itoa(r+1)
	}
	if rel {
		r = (row + int(int16(r))) & 0xFFFF
	}
	return strconv.Itoa(r + 1)
}

// sheetPrefix is the sheet part of a 3-D reference (Sheet2!, 'My
// sheet'!, Sheet1:Sheet3!) from its EXTERNSHEET entry.
func (n *formulaNames) sheetPrefix(ixti int) (string, error) {
	if ixti >= len(n.externals) {
		return "", noText("it refers to a sheet the workbook's EXTERNSHEET table does not list")
	}
	x := n.externals[ixti]
	if x.book >= len(n.supBooks) || n.supBooks[x.book] != supSelf {
		return "", noText("it refers to another workbook")
	}
	if x.first < 0 || x.first >= len(n.tabs) || x.last < x.first || x.last >= len(n.tabs) {
		return "", noText("it refers to a deleted sheet")
	}
	name := n.tabs[x.first]
	if x.last != x.first {
		name += ":" + n.tabs[x.last]
	}
	if needsQuotes(n.tabs[x.first]) || needsQuotes(n.tabs[x.last]) {
		return "'" + strings.ReplaceAll(name, "'", "''") + "'!", nil
	}
	return name + "!", nil
}

// needsQuotes reports whether Excel quotes a sheet name in a reference:
// anything but letters, digits, _ and . (not starting with a digit), or
// a name that reads as a cell reference.
func needsQuotes(s string) bool {
	if s == "" {
		return true
	}
	for i, r := range s {
		switch {
		case r == '_' || r == '.' || r > 0x7F:
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9':
			if i == 0 {
				return true
			}
		default:
			return true
		}
	}
	letters := strings.TrimRight(s, "0123456789")
	if letters != s && len(letters) > 0 && len(letters) <= 3 && strings.Trim(strings.ToUpper(letters), "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
		return true
	}
	return strings.EqualFold(s, "TRUE") || strings.EqualFold(s, "FALSE")
}

// externalName is the name an PtgNameX token refers to: an add-in
// function's name (EXTERNNAME under an add-in SUPBOOK, or under this
// workbook's own), else no text.
func (n *formulaNames) externalName(ixti, k int) (string, error) {
	if ixti >= len(n.externals) {
		return "", noText("it refers to an external name the workbook's EXTERNSHEET table does not list")
	}
	x := n.externals[ixti]
	if x.book >= len(n.supBooks) || n.supBooks[x.book] == supExternal {
		return "", noText("it refers to a name in another workbook")
	}
	if n.supBooks[x.book] == supSelf {
		if k < 1 || k > len(n.names) || n.names[k-1] == "" {
			return "", noText(fmt.Sprintf("it refers to defined name %d, which the workbook does not define", k))
		}
		return n.names[k-1], nil
	}
	if k < 1 || x.book >= len(n.extNames) || k > len(n.extNames[x.book]) {
		return "", noText("it refers to an add-in function the workbook does not name")
	}
	return n.extNames[x.book][k-1], nil
}

// builtinNames are the names of Excel's built-in defined names, by the
// one-character code a NAME record gives them.
var builtinNames = [...]string{"Consolidate_Area", "Auto_Open", "Auto_Close", "Extract", "Database", "Criteria", "Print_Area", "Print_Titles", "Recorder", "Data_Form", "Auto_Activate", "Auto_Deactivate", "Sheet_Title", "_FilterDatabase"}

// readName reads a BIFF8 NAME record's name ("" when it cannot).
func readName(body []byte) string {
	if len(body) < 15 {
		return ""
	}
	builtin, cch := body[0]&0x20 != 0, int(body[3])
	s, _, ok := formulaChars(body[14:], cch)
	if !ok {
		return ""
	}
	if builtin && len(s) == 1 && int(s[0]) < len(builtinNames) {
		return "_xlnm." + builtinNames[s[0]]
	}
	return s
}

// readSupBook reads what a SUPBOOK record points to.
func readSupBook(body []byte) supBook {
	if len(body) == 4 {
		switch binary.LittleEndian.Uint16(body[2:]) {
		case 0x0401:
			return supSelf
		case 0x3A01:
			return supAddIn
		}
	}
	return supExternal
}

// readExternName reads a BIFF8 EXTERNNAME record's name.
func readExternName(body []byte) string {
	if len(body) < 8 {
		return ""
	}
	s, _, ok := formulaChars(body[7:], int(body[6]))
	if !ok {
		return ""
	}
	return s
}

// readExternSheet reads a BIFF8 EXTERNSHEET record's entries.
func readExternSheet(body []byte) []xti {
	if len(body) < 2 {
		return nil
	}
	k := int(binary.LittleEndian.Uint16(body))
	var out []xti
	for j := 0; j < k && 2+6*j+6 <= len(body); j++ {
		e := body[2+6*j:]
		out = append(out, xti{book: int(binary.LittleEndian.Uint16(e)), first: int(int16(binary.LittleEndian.Uint16(e[2:]))), last: int(int16(binary.LittleEndian.Uint16(e[4:])))})
	}
	return out
}
