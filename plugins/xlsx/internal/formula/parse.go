// Package formula computes the value of a worksheet formula that a workbook
// stores without a cached result, over the functions real workbooks use.
// A formula it cannot compute exactly (a function it does not know, a
// defined name, an array formula) is answered with the reason, never with a
// guess.
package formula

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toolhost/toolhost/plugins/xlsx/internal/workbook"
)

// Unsupported is the reason a formula was not computed.
type Unsupported struct{ Reason string }

func (u *Unsupported) Error() string { return u.Reason }

func unsupported(format string, a ...any) error {
	return &Unsupported{Reason: fmt.Sprintf(format, a...)}
}

// node is a parsed formula expression.
type node interface{}

type (
	numLit  float64
	strLit  string
	boolLit bool
	errLit  string
	// refNode is a cell or a range: rows and columns 1-based; a whole
	// column has r1 = 1, r2 = MaxRows.
	refNode struct {
		sheet          string // "" for the formula's own sheet
		r1, c1, r2, c2 int
	}
	unary struct {
		op byte // '-', '+', '%'
		x  node
	}
	binary struct {
		op   string
		l, r node
	}
	call struct {
		name string
		args []node
	}
	arrayLit struct {
		rows [][]node
	}
	missingArg struct{}
)

type parser struct {
	s   string
	pos int
}

// parse parses a formula's text, without its "=".
func parse(s string) (node, error) {
	p := &parser{s: s}
	n, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.s) {
		return nil, unsupported("cannot read the formula past %q", clip(p.s[p.pos:]))
	}
	return n, nil
}

func clip(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}

func (p *parser) space() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\n' || p.s[p.pos] == '\r' || p.s[p.pos] == '\t') {
		p.pos++
	}
}

// Binary operators by precedence, lowest first (Excel's order).
var precedence = map[string]int{
	"=": 1, "<>": 1, "<": 1, ">": 1, "<=": 1, ">=": 1,
	"&": 2,
	"+": 3, "-": 3,
	"*": 4, "/": 4,
	"^": 5,
}

func (p *parser) peekOp() string {
	p.space()
	if p.pos >= len(p.s) {
		return ""
	}
	for _, op := range []string{"<>", "<=", ">=", "=", "<", ">", "&", "+", "-", "*", "/", "^"} {
		if strings.HasPrefix(p.s[p.pos:], op) {
			return op
		}
	}
	return ""
}

func (p *parser) expr(minPrec int) (node, error) {
	l, err := p.unaryExpr()
	if err != nil {
		return nil, err
	}
	for {
		op := p.peekOp()
		prec, ok := precedence[op]
		if !ok || prec <= minPrec {
			return l, nil
		}
		p.pos += len(op)
		next := prec
		if op == "^" {
			next = prec // Excel's ^ is left-associative: 2^3^2 is 64
		}
		r, err := p.expr(next)
		if err != nil {
			return nil, err
		}
		l = binary{op: op, l: l, r: r}
	}
}

func (p *parser) unaryExpr() (node, error) {
	p.space()
	if p.pos < len(p.s) && (p.s[p.pos] == '-' || p.s[p.pos] == '+') {
		op := p.s[p.pos]
		p.pos++
		x, err := p.unaryExpr()
		if err != nil {
			return nil, err
		}
		return unary{op: op, x: x}, nil
	}
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	for {
		p.space()
		if p.pos < len(p.s) && p.s[p.pos] == '%' {
			p.pos++
			x = unary{op: '%', x: x}
			continue
		}
		return x, nil
	}
}

var errorNames = []string{"#DIV/0!", "#N/A", "#NAME?", "#NULL!", "#NUM!", "#REF!", "#VALUE!", "#GETTING_DATA", "#SPILL!", "#CALC!"}

func (p *parser) primary() (node, error) {
	p.space()
	if p.pos >= len(p.s) {
		return nil, unsupported("the formula ends where a value was expected")
	}
	c := p.s[p.pos]
	switch {
	case c == '(':
		p.pos++
		x, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos < len(p.s) && p.s[p.pos] == ',' {
			return nil, unsupported("a union of references is not supported")
		}
		if p.pos >= len(p.s) || p.s[p.pos] != ')' {
			return nil, unsupported("a parenthesis is not closed")
		}
		p.pos++
		return x, nil
	case c == '"':
		var b strings.Builder
		i := p.pos + 1
		for {
			if i >= len(p.s) {
				return nil, unsupported("a text in quotes is not closed")
			}
			if p.s[i] == '"' {
				if i+1 < len(p.s) && p.s[i+1] == '"' {
					b.WriteByte('"')
					i += 2
					continue
				}
				break
			}
			b.WriteByte(p.s[i])
			i++
		}
		p.pos = i + 1
		return strLit(b.String()), nil
	case c == '#':
		for _, e := range errorNames {
			if strings.HasPrefix(strings.ToUpper(p.s[p.pos:]), e) {
				p.pos += len(e)
				return errLit(e), nil
			}
		}
		return nil, unsupported("unknown error value %q", clip(p.s[p.pos:]))
	case c == '{':
		return p.array()
	case c >= '0' && c <= '9' || c == '.':
		// A number, or a row range (1:3).
		if r, ok := p.rowRange(""); ok {
			return r, nil
		}
		return p.number()
	case c == '\'':
		return p.quotedSheetRef()
	}
	return p.word()
}

func (p *parser) number() (node, error) {
	i := p.pos
	for i < len(p.s) && (p.s[i] >= '0' && p.s[i] <= '9' || p.s[i] == '.') {
		i++
	}
	if i < len(p.s) && (p.s[i] == 'e' || p.s[i] == 'E') {
		j := i + 1
		if j < len(p.s) && (p.s[j] == '+' || p.s[j] == '-') {
			j++
		}
		if j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
			for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
				j++
			}
			i = j
		}
	}
	f, err := strconv.ParseFloat(p.s[p.pos:i], 64)
	if err != nil {
		return nil, unsupported("cannot read the number %q", p.s[p.pos:i])
	}
	p.pos = i
	return numLit(f), nil
}

func (p *parser) array() (node, error) {
	p.pos++ // {
	var a arrayLit
	row := []node{}
	for {
		x, err := p.unaryExpr()
		if err != nil {
			return nil, err
		}
		switch x.(type) {
		case numLit, strLit, boolLit, errLit:
		case unary:
			if _, ok := x.(unary).x.(numLit); !ok {
				return nil, unsupported("an array constant holds an expression")
			}
		default:
			return nil, unsupported("an array constant holds a reference")
		}
		row = append(row, x)
		p.space()
		if p.pos >= len(p.s) {
			return nil, unsupported("an array constant is not closed")
		}
		switch p.s[p.pos] {
		case ',':
			p.pos++
		case ';':
			p.pos++
			a.rows = append(a.rows, row)
			row = []node{}
		case '}':
			p.pos++
			a.rows = append(a.rows, row)
			for _, r := range a.rows {
				if len(r) != len(a.rows[0]) {
					return nil, unsupported("an array constant's rows differ in length")
				}
			}
			return a, nil
		default:
			return nil, unsupported("cannot read the array constant at %q", clip(p.s[p.pos:]))
		}
	}
}

// quotedSheetRef reads 'Sheet name'!A1.
func (p *parser) quotedSheetRef() (node, error) {
	var b strings.Builder
	i := p.pos + 1
	for {
		if i >= len(p.s) {
			return nil, unsupported("a quoted sheet name is not closed")
		}
		if p.s[i] == '\'' {
			if i+1 < len(p.s) && p.s[i+1] == '\'' {
				b.WriteByte('\'')
				i += 2
				continue
			}
			break
		}
		b.WriteByte(p.s[i])
		i++
	}
	if i+1 >= len(p.s) || p.s[i+1] != '!' {
		return nil, unsupported("a quoted name is not followed by a reference")
	}
	p.pos = i + 2
	return p.refAfterSheet(b.String())
}

func (p *parser) refAfterSheet(sheet string) (node, error) {
	if strings.ContainsAny(sheet, "[]") {
		return nil, unsupported("refers to another workbook")
	}
	if strings.Contains(sheet, ":") {
		return nil, unsupported("a 3-D reference across sheets is not supported")
	}
	if r, ok := p.rowRange(sheet); ok {
		return r, nil
	}
	start := p.pos
	w := p.identifier()
	if r, ok := p.cellOrColumnRange(w, sheet); ok {
		return r, nil
	}
	p.pos = start
	if strings.HasPrefix(strings.ToUpper(p.s[p.pos:]), "#REF!") {
		p.pos += 5
		return errLit("#REF!"), nil
	}
	return nil, unsupported("uses the name %s!%s, which is not a cell reference", sheet, w)
}

func (p *parser) identifier() string {
	i := p.pos
	for i < len(p.s) {
		c := p.s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '$' || c == '\\' || c >= 0x80 {
			i++
			continue
		}
		break
	}
	w := p.s[p.pos:i]
	p.pos = i
	return w
}

func (p *parser) word() (node, error) {
	start := p.pos
	w := p.identifier()
	if w == "" {
		return nil, unsupported("unexpected %q", clip(p.s[p.pos:]))
	}
	p.space()
	if p.pos < len(p.s) && p.s[p.pos] == '(' {
		p.pos++
		return p.callArgs(w)
	}
	if p.pos < len(p.s) && p.s[p.pos] == '!' {
		p.pos++
		return p.refAfterSheet(w)
	}
	p.pos = start + len(w)
	if r, ok := p.cellOrColumnRange(w, ""); ok {
		return r, nil
	}
	switch strings.ToUpper(w) {
	case "TRUE":
		return boolLit(true), nil
	case "FALSE":
		return boolLit(false), nil
	}
	return nil, unsupported("uses the defined name %s", w)
}

func (p *parser) callArgs(name string) (node, error) {
	name = strings.ToUpper(name)
	prefixed := false
	for _, prefix := range []string{"_XLFN._XLWS.", "_XLFN.", "_XLWS."} {
		if strings.HasPrefix(name, prefix) {
			name, prefixed = name[len(prefix):], true
			break
		}
	}
	if !prefixed && newFunctions[name] {
		// Excel stores a function newer than 2007 as _xlfn.NAME; without
		// the prefix, Excel and LibreOffice read an unknown name.
		name = "#NAME?"
	}
	c := call{name: name}
	p.space()
	if p.pos < len(p.s) && p.s[p.pos] == ')' {
		p.pos++
		return c, nil
	}
	for {
		p.space()
		var arg node = missingArg{}
		if p.pos < len(p.s) && p.s[p.pos] != ',' && p.s[p.pos] != ')' {
			x, err := p.expr(0)
			if err != nil {
				return nil, err
			}
			arg = x
		}
		c.args = append(c.args, arg)
		p.space()
		if p.pos >= len(p.s) {
			return nil, unsupported("the call of %s is not closed", name)
		}
		switch p.s[p.pos] {
		case ',':
			p.pos++
		case ')':
			p.pos++
			return c, nil
		default:
			return nil, unsupported("cannot read the arguments of %s at %q", name, clip(p.s[p.pos:]))
		}
	}
}

// cellOrColumnRange reads w as a cell (A1), a cell range (A1:B2) or a
// column range (A:C), the ':' and second part read from the input.
func (p *parser) cellOrColumnRange(w, sheet string) (node, bool) {
	save := p.pos
	if r, c, ok := workbook.ParseRef(strings.ReplaceAll(w, "$", "")); ok {
		n := refNode{sheet: sheet, r1: r, c1: c, r2: r, c2: c}
		if p.pos < len(p.s) && p.s[p.pos] == ':' {
			p.pos++
			w2 := p.identifier()
			if r2, c2, ok := workbook.ParseRef(strings.ReplaceAll(w2, "$", "")); ok {
				n.r1, n.r2 = min(r, r2), max(r, r2)
				n.c1, n.c2 = min(c, c2), max(c, c2)
				return n, true
			}
			p.pos = save
			return nil, false
		}
		return n, true
	}
	c1, ok := columnOf(w)
	if !ok || p.pos >= len(p.s) || p.s[p.pos] != ':' {
		return nil, false
	}
	p.pos++
	c2, ok := columnOf(p.identifier())
	if !ok {
		p.pos = save
		return nil, false
	}
	return refNode{sheet: sheet, r1: 1, r2: workbook.MaxRows, c1: min(c1, c2), c2: max(c1, c2)}, true
}

// rowRange reads a whole-row range (1:3, $2:$2).
func (p *parser) rowRange(sheet string) (node, bool) {
	save := p.pos
	digits := func() (int, bool) {
		if p.pos < len(p.s) && p.s[p.pos] == '$' {
			p.pos++
		}
		i := p.pos
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
		}
		n, err := strconv.Atoi(p.s[i:p.pos])
		return n, err == nil && n >= 1 && n <= workbook.MaxRows
	}
	r1, ok := digits()
	if !ok || p.pos >= len(p.s) || p.s[p.pos] != ':' {
		p.pos = save
		return nil, false
	}
	p.pos++
	r2, ok := digits()
	if !ok {
		p.pos = save
		return nil, false
	}
	return refNode{sheet: sheet, r1: min(r1, r2), r2: max(r1, r2), c1: 1, c2: workbook.MaxColumns}, true
}

func columnOf(w string) (int, bool) {
	w = strings.TrimPrefix(w, "$")
	if w == "" || len(w) > 3 {
		return 0, false
	}
	c := 0
	for i := 0; i < len(w); i++ {
		ch := w[i] | 0x20
		if ch < 'a' || ch > 'z' {
			return 0, false
		}
		c = c*26 + int(ch-'a'+1)
	}
	return c, c <= workbook.MaxColumns
}
