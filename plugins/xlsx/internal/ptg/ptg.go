// Package ptg turns the parsed formula tokens ("Ptg"s) of Excel's binary
// formats — BIFF8 in .xls, BIFF12 in .xlsb — into the formula text Excel
// shows (=SUM(A1:A3)). No Go library reads them. A token not decompiled
// gives no text and the reason (NoText), never a wrong text.
package ptg

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

// SupBook is what a SUPBOOK record (BIFF12: BrtSupSelf, BrtSupAddin, …)
// points the references after it to.
type SupBook uint8

// The kinds of SUPBOOK.
const (
	External SupBook = iota // another workbook, or DDE/OLE
	Self                    // this workbook's own sheets
	AddIn                   // add-in functions (EXTERNNAME)
)

// XTI is one EXTERNSHEET entry: a SUPBOOK and a span of its sheets.
type XTI struct{ Book, First, Last int }

// Names are what a formula's tokens refer to beyond cells: the workbook's
// defined names, its sheets (every sheet, in order), and the EXTERNSHEET
// and SUPBOOK tables of 3-D references; BIFF12 reads .xlsb's tokens.
type Names struct {
	Names     []string   // defined names, in order (PtgName is 1-based)
	Tabs      []string   // every sheet's name, in order
	SupBooks  []SupBook  // SUPBOOKs, in order
	ExtNames  [][]string // each SUPBOOK's external names
	Externals []XTI
	BIFF12    bool
}

// NoText is the reason a formula has no text: its tokens hold something
// not decompiled here.
type NoText string

type noText = NoText

// Decompile turns a formula's parsed tokens (rgce) into the text
// Excel shows (=SUM(A1:A3)), at the cell (row, col), 0-based, which
// relative references of a shared formula (PtgRefN, PtgAreaN) count from;
// extra is the data after the tokens (array constants, in token order).
// A token not decompiled here gives no text and the reason, never a
// wrong text.
func (n *Names) Decompile(rgce, extra []byte, row, col int) (string, error) {
	g := grid{rowBytes: 2, colMask: 0xFF, colBits: 8, rowBits: 16}
	if n.BIFF12 {
		g = grid{rowBytes: 4, colMask: 0x3FFF, colBits: 14, rowBits: 20}
	}
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
	if len(rgce) > maxTokens {
		return "", noText("its tokens are longer than any formula Excel writes")
	}
	for i := 0; i < len(rgce); {
		if len(st) > 0 && len(st[len(st)-1]) > maxFormulaText {
			return "", noText("its text would be longer than Excel's 8,192 characters")
		}
		if len(st) > maxFormulaText {
			return "", noText("its tokens leave more operands than any formula Excel writes")
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
			s, k, ok := "", 0, false
			if n.BIFF12 {
				s, k, ok = wideChars(rgce[i:])
			} else if i < len(rgce) {
				s, k, ok = Chars(rgce[i+1:], int(rgce[i]))
				k++
			}
			if !ok {
				return "", noText("its tokens are cut short")
			}
			i += k
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
			if f, ok12 := ftab12[idx]; n.BIFF12 && !ok && ok12 {
				if base == 0x21 && f.argc < 0 {
					return "", noText(fmt.Sprintf("its function %s has no fixed argument count here", f.name))
				}
				def, ok = funcDef{f.name, f.argc, f.argc}, true
			}
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
				if f, ok := strings.CutPrefix(name, "_xlfn."); ok && excel2007[f] {
					// .xls calls Excel 2007's functions by a name with
					// this prefix; .xlsx writes them as any other.
					name = f
				}
			}
			st = append(st, name+"("+strings.Join(args, ",")+")")
		case 0x23: // defined name
			if err := need(i, 4); err != nil {
				return "", err
			}
			k := int(binary.LittleEndian.Uint32(rgce[i:]))
			i += 4
			if k < 1 || k > len(n.Names) || n.Names[k-1] == "" {
				return "", noText(fmt.Sprintf("it refers to defined name %d, which the workbook does not define", k))
			}
			st = append(st, n.Names[k-1])
		case 0x24, 0x2C: // cell reference; relative to the cell (shared)
			if err := need(i, g.loc()); err != nil {
				return "", err
			}
			st = append(st, g.cellRef(rgce[i:], row, col, base == 0x2C))
			i += g.loc()
		case 0x25, 0x2D: // area; relative to the cell (shared)
			if err := need(i, g.area()); err != nil {
				return "", err
			}
			st = append(st, g.areaRef(rgce[i:], row, col, base == 0x2D))
			i += g.area()
		case 0x26: // a subexpression's size, and its areas after the tokens
			i += 6
			count, size, each := 0, 2, 8
			if n.BIFF12 {
				size, each = 4, 16
				if len(extra) >= 4 {
					count = int(min(binary.LittleEndian.Uint32(extra), 1<<16))
				}
			} else if len(extra) >= 2 {
				count = int(binary.LittleEndian.Uint16(extra))
			}
			if len(extra) < size+each*count {
				return "", noText("its tokens' data is cut short")
			}
			extra = extra[size+each*count:]
		case 0x27, 0x28: // the size of a subexpression: skipped
			i += 6
		case 0x29:
			i += 2
		case 0x2A:
			st = append(st, "#REF!")
			i += g.loc()
		case 0x2B:
			st = append(st, "#REF!")
			i += g.area()
		case 0x39: // external name: an add-in function's name
			if err := need(i, 6); err != nil {
				return "", err
			}
			ixti, k := int(binary.LittleEndian.Uint16(rgce[i:])), int(binary.LittleEndian.Uint16(rgce[i+2:]))
			if n.BIFF12 {
				k = int(min(binary.LittleEndian.Uint32(rgce[i+2:]), 1<<24))
			}
			i += 6
			s, err := n.externalName(ixti, k)
			if err != nil {
				return "", err
			}
			st = append(st, s)
		case 0x3A, 0x3B, 0x3C, 0x3D: // 3-D reference, area, and their #REF! forms
			size := 2 + g.loc()
			if base == 0x3B || base == 0x3D {
				size = 2 + g.area()
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
				st = append(st, sheet+g.cellRef(rgce[i+2:], row, col, false))
			case 0x3B:
				st = append(st, sheet+g.areaRef(rgce[i+2:], row, col, false))
			default:
				st = append(st, sheet+"#REF!")
			}
			i += size
		case 0x01:
			return "", noText("it is part of a shared or array formula whose definition was not found")
		case 0x02:
			return "", noText("it is a data table (TABLE), which has no formula text")
		case 0x20: // an array constant, its values after the tokens
			if n.BIFF12 {
				return "", noText("it holds an array constant, not decompiled from .xlsb")
			}
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

// maxTokens is the longest token string read: a formula of the longest
// text needs far fewer bytes of tokens, while an .xlsb record's length
// may claim far more.
const maxTokens = 1 << 16

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
				s, k, ok := Chars(b[2:], int(binary.LittleEndian.Uint16(b)))
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

// excel2007 are the functions Excel 2007 added that .xls calls by an
// _xlfn. name: .xlsx and .xlsb write them without it.
var excel2007 = map[string]bool{"IFERROR": true, "SUMIFS": true, "COUNTIFS": true, "AVERAGEIF": true, "AVERAGEIFS": true}

var binaryOps = [...]string{"+", "-", "*", "/", "^", "&", "<", "<=", "=", ">=", ">", "<>", " ", ",", ":"}

// wideChars reads a BIFF12 string: a 2-byte count of UTF-16 characters,
// then the characters; it returns the bytes used.
func wideChars(b []byte) (string, int, bool) {
	if len(b) < 2 {
		return "", 0, false
	}
	cch := int(binary.LittleEndian.Uint16(b))
	if 2+2*cch > len(b) {
		return "", 0, false
	}
	u := make([]uint16, cch)
	for j := range cch {
		u[j] = binary.LittleEndian.Uint16(b[2+2*j:])
	}
	return string(utf16.Decode(u)), 2 + 2*cch, true
}

// Chars reads a BIFF8 string of cch characters after its flags byte (bit
// 0: two bytes a character), returning the bytes used.
func Chars(b []byte, cch int) (string, int, bool) {
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

// grid is a format's reference layout: BIFF8's rows of 2 bytes and
// columns of 8 bits, BIFF12's rows of 4 bytes and columns of 14 bits;
// both mark a relative column and row in bits 14 and 15 of the column.
type grid struct {
	rowBytes         int
	colMask          int
	colBits, rowBits int
}

func (g grid) loc() int  { return g.rowBytes + 2 }
func (g grid) area() int { return 2*g.rowBytes + 4 }

func (g grid) row(b []byte) int {
	if g.rowBytes == 4 {
		return int(binary.LittleEndian.Uint32(b))
	}
	return int(binary.LittleEndian.Uint16(b))
}

// cellRef writes a cell reference (row, then column with its relative
// flags) in A1 notation; rel reads a relative row and column as offsets
// from (row, col), as a shared formula stores them.
func (g grid) cellRef(b []byte, row, col int, rel bool) string {
	r, c := g.row(b), int(binary.LittleEndian.Uint16(b[g.rowBytes:]))
	return g.a1(r, c, row, col, rel)
}

func (g grid) areaRef(b []byte, row, col int, rel bool) string {
	r0, r1 := g.row(b), g.row(b[g.rowBytes:])
	c0, c1 := int(binary.LittleEndian.Uint16(b[2*g.rowBytes:])), int(binary.LittleEndian.Uint16(b[2*g.rowBytes+2:]))
	// A whole column (every row) or a whole row (every column) is
	// written as Excel shows it: A:A, 1:1.
	if r0 == 0 && r1 == 1<<g.rowBits-1 && c0&0x8000 == c1&0x8000 {
		return g.colPart(c0, col, rel) + ":" + g.colPart(c1, col, rel)
	}
	if c0&g.colMask == 0 && c1&g.colMask == g.colMask && c0&0x4000 == c1&0x4000 {
		return g.rowPart(r0, c0, row, rel) + ":" + g.rowPart(r1, c1, row, rel)
	}
	return g.a1(r0, c0, row, col, rel) + ":" + g.a1(r1, c1, row, col, rel)
}

func (g grid) a1(r, c, row, col int, rel bool) string {
	return g.colPart(c, col, rel) + g.rowPart(r, c, row, rel)
}

func (g grid) colPart(c, col int, rel bool) string {
	x := c & g.colMask
	if c&0x4000 == 0 {
		return "$" + workbook.ColumnName(x+1)
	}
	if rel {
		off := x << (64 - g.colBits) >> (64 - g.colBits) // sign-extended
		x = (col + off) & (1<<g.colBits - 1)
	}
	return workbook.ColumnName(x + 1)
}

func (g grid) rowPart(r, c, row int, rel bool) string {
	if c&0x8000 == 0 {
		return "$" + strconv.Itoa(r+1)
	}
	if rel {
		off := r << (64 - 8*g.rowBytes) >> (64 - 8*g.rowBytes) // sign-extended
		r = (row + off) & (1<<g.rowBits - 1)
	}
	return strconv.Itoa(r + 1)
}

// sheetPrefix is the sheet part of a 3-D reference (Sheet2!, 'My
// sheet'!, Sheet1:Sheet3!) from its EXTERNSHEET entry.
func (n *Names) sheetPrefix(ixti int) (string, error) {
	if ixti >= len(n.Externals) {
		return "", noText("it refers to a sheet the workbook's EXTERNSHEET table does not list")
	}
	x := n.Externals[ixti]
	if x.Book >= len(n.SupBooks) || n.SupBooks[x.Book] != Self {
		return "", noText("it refers to another workbook")
	}
	if x.First < 0 || x.First >= len(n.Tabs) || x.Last < x.First || x.Last >= len(n.Tabs) {
		return "", noText("it refers to a deleted sheet")
	}
	name := n.Tabs[x.First]
	if x.Last != x.First {
		name += ":" + n.Tabs[x.Last]
	}
	if needsQuotes(n.Tabs[x.First]) || needsQuotes(n.Tabs[x.Last]) {
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
func (n *Names) externalName(ixti, k int) (string, error) {
	if ixti >= len(n.Externals) {
		return "", noText("it refers to an external name the workbook's EXTERNSHEET table does not list")
	}
	x := n.Externals[ixti]
	if x.Book >= len(n.SupBooks) || n.SupBooks[x.Book] == External {
		return "", noText("it refers to a name in another workbook")
	}
	if n.SupBooks[x.Book] == Self {
		if k < 1 || k > len(n.Names) || n.Names[k-1] == "" {
			return "", noText(fmt.Sprintf("it refers to defined name %d, which the workbook does not define", k))
		}
		return n.Names[k-1], nil
	}
	if k < 1 || x.Book >= len(n.ExtNames) || k > len(n.ExtNames[x.Book]) {
		return "", noText("it refers to an add-in function the workbook does not name")
	}
	return n.ExtNames[x.Book][k-1], nil
}
