package formula

import (
	"math"
)

// evaluator evaluates one formula in its cell.
type evaluator struct {
	b        *Book
	sh       *sheetData
	row, col int
}

func (e *evaluator) eval(n node) (result, error) {
	switch n := n.(type) {
	case numLit:
		return scalar(num(float64(n))), nil
	case strLit:
		return scalar(str(string(n))), nil
	case boolLit:
		return scalar(boolean(bool(n))), nil
	case errLit:
		return scalar(errv(string(n))), nil
	case missingArg:
		return scalar(value{}), nil
	case refNode:
		sh := e.sh
		if n.sheet != "" {
			s, err := e.b.sheet(n.sheet)
			if err != nil {
				return result{}, err
			}
			if s == nil {
				return scalar(errRef), nil
			}
			sh = s
		}
		return result{ref: &rangeRef{sh: sh, r1: n.r1, c1: n.c1, r2: n.r2, c2: n.c2}}, nil
	case arrayLit:
		a := &array{rows: len(n.rows), cols: len(n.rows[0])}
		for _, row := range n.rows {
			for _, x := range row {
				r, err := e.eval(x)
				if err != nil {
					return result{}, err
				}
				a.v = append(a.v, r.v)
			}
		}
		return result{arr: a}, nil
	case unary:
		r, err := e.eval(n.x)
		if err != nil {
			return result{}, err
		}
		v, err := e.single(r)
		if err != nil {
			return result{}, err
		}
		f, bad, err := toNum(v)
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		switch n.op {
		case '-':
			return scalar(num(-f)), nil
		case '%':
			return scalar(num(f / 100)), nil
		}
		return scalar(num(f)), nil
	case binary:
		return e.binary(n)
	case call:
		return e.call(n)
	}
	return result{}, unsupported("cannot compute this expression")
}

func deref(v *value) value {
	if v == nil {
		return value{}
	}
	return *v
}

// single reduces a result to one value: a one-cell reference to its cell.
// A larger range where one value is expected would take Excel's implicit
// intersection with the formula's row or column (or spill, in Excel 365),
// which this engine does not do.
func (e *evaluator) single(r result) (value, error) {
	switch {
	case r.ref != nil:
		if r.ref.r1 == r.ref.r2 && r.ref.c1 == r.ref.c2 {
			return e.b.cell(r.ref.sh, r.ref.r1, r.ref.c1)
		}
		return value{}, unsupported("uses the range %s where one value is expected (implicit intersection or a spilled array)", refName(r.ref))
	case r.arr != nil:
		if len(r.arr.v) == 1 {
			return r.arr.v[0], nil
		}
		return value{}, unsupported("uses an array where one value is expected")
	}
	return r.v, nil
}

func refName(r *rangeRef) string {
	return cellName(r.r1, r.c1) + ":" + cellName(r.r2, r.c2)
}

func (e *evaluator) scalarArg(n node) (value, error) {
	r, err := e.eval(n)
	if err != nil {
		return value{}, err
	}
	return e.single(r)
}

func (e *evaluator) binary(n binary) (result, error) {
	a, err := e.scalarArg(n.l)
	if err != nil {
		return result{}, err
	}
	b, err := e.scalarArg(n.r)
	if err != nil {
		return result{}, err
	}
	switch n.op {
	case "&":
		if a.k == vErr {
			return scalar(a), nil
		}
		if b.k == vErr {
			return scalar(b), nil
		}
		x, _, err := toText(a)
		if err != nil {
			return result{}, err
		}
		y, _, err := toText(b)
		if err != nil {
			return result{}, err
		}
		return scalar(str(x + y)), nil
	case "=", "<>", "<", ">", "<=", ">=":
		if a.k == vErr {
			return scalar(a), nil
		}
		if b.k == vErr {
			return scalar(b), nil
		}
		c := compare(a, b)
		var t bool
		switch n.op {
		case "=":
			t = c == 0
		case "<>":
			t = c != 0
		case "<":
			t = c < 0
		case ">":
			t = c > 0
		case "<=":
			t = c <= 0
		case ">=":
			t = c >= 0
		}
		return scalar(boolean(t)), nil
	}
	x, bad, err := toNum(a)
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	y, bad, err := toNum(b)
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	switch n.op {
	case "+":
		return scalar(num(x + y)), nil
	case "-":
		return scalar(num(x - y)), nil
	case "*":
		return scalar(num(x * y)), nil
	case "/":
		if y == 0 {
			return scalar(errDiv0), nil
		}
		return scalar(num(x / y)), nil
	case "^":
		if x == 0 && y <= 0 {
			if y == 0 {
				return scalar(errNum), nil
			}
			return scalar(errDiv0), nil
		}
		if x < 0 && y != math.Trunc(y) {
			return scalar(errNum), nil
		}
		return scalar(num(math.Pow(x, y))), nil
	}
	return result{}, unsupported("the operator %s is not supported", n.op)
}

func (e *evaluator) call(c call) (result, error) {
	if c.name == "#NAME?" {
		return scalar(errv("#NAME?")), nil
	}
	if f, ok := lazyFuncs[c.name]; ok {
		return f(e, c.args)
	}
	f, ok := funcs[c.name]
	if !ok {
		if volatile[c.name] {
			return result{}, unsupported("uses %s, whose value changes every time the workbook is calculated", c.name)
		}
		return result{}, unsupported("uses the function %s, which is not computed here", c.name)
	}
	args := make([]result, len(c.args))
	for i, a := range c.args {
		r, err := e.eval(a)
		if err != nil {
			return result{}, err
		}
		args[i] = r
	}
	if len(args) < f.min || f.max >= 0 && len(args) > f.max {
		return scalar(errValue), unsupported("calls %s with %d arguments", c.name, len(args))
	}
	v, err := f.fn(e, args)
	if err != nil {
		return result{}, err
	}
	return v, nil
}

// newFunctions are the functions computed here that Excel added after
// 2007 and writes with the _xlfn. prefix.
var newFunctions = map[string]bool{"CONCAT": true, "IFNA": true, "XOR": true, "IFS": true, "MAXIFS": true,
	"MINIFS": true, "TEXTJOIN": true, "DAYS": true}

var volatile = map[string]bool{"NOW": true, "TODAY": true, "RAND": true, "RANDBETWEEN": true, "RANDARRAY": true, "INDIRECT": true, "OFFSET": true, "CELL": true, "INFO": true}

// values calls fn for each value an aggregate function (SUM, COUNT, …)
// sees: every cell of a reference and array, each other argument as it is.
// fromRef says which: in a reference, text and booleans are skipped by the
// numeric aggregates, while as direct arguments they are converted.
func (e *evaluator) values(args []result, fn func(v value, fromRef bool) error) error {
	for _, a := range args {
		switch {
		case a.ref != nil:
			if err := e.b.each(a.ref, func(_, _ int, v value) error { return fn(v, true) }); err != nil {
				return err
			}
		case a.arr != nil:
			for _, v := range a.arr.v {
				if err := fn(v, true); err != nil {
					return err
				}
			}
		default:
			if err := fn(a.v, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// errStop ends a values walk with an Excel error as the function's answer.
type errStop struct{ v value }

func (errStop) Error() string { return "stop" }

// numbers collects the numbers an aggregate sees: from references only
// numbers, from direct arguments numbers, booleans and numeric text. An
// error anywhere is the answer.
func (e *evaluator) numbers(args []result) ([]float64, *value, error) {
	var out []float64
	err := e.values(args, func(v value, fromRef bool) error {
		switch v.k {
		case vErr:
			return errStop{v}
		case vNum:
			out = append(out, v.n)
		case vBool, vStr:
			if fromRef {
				return nil
			}
			f, bad, err := toNum(v)
			if err != nil {
				return err
			}
			if bad != nil {
				return errStop{*bad}
			}
			out = append(out, f)
		}
		return nil
	})
	if s, ok := err.(errStop); ok {
		return nil, &s.v, nil
	}
	return out, nil, err
}

// grid returns a reference's or array's values as rows × cols (empty
// cells included), bounded to the cells the sheet stores.
func (e *evaluator) grid(r result) (rows, cols int, at func(i, j int) (value, error), err error) {
	switch {
	case r.ref != nil:
		ref := *r.ref
		if ref.sh != nil && len(ref.sh.cells) > 0 {
			last := ref.sh.cells[len(ref.sh.cells)-1].row
			ref.r2 = max(min(ref.r2, last), ref.r1)
			maxCol := 0
			for _, c := range ref.sh.cells {
				maxCol = max(maxCol, c.col)
			}
			ref.c2 = max(min(ref.c2, maxCol), ref.c1)
		}
		return ref.rows(), ref.cols(), func(i, j int) (value, error) {
			if ref.sh == nil {
				return value{}, nil
			}
			return e.b.cell(ref.sh, ref.r1+i, ref.c1+j)
		}, nil
	case r.arr != nil:
		a := r.arr
		return a.rows, a.cols, func(i, j int) (value, error) { return a.v[i*a.cols+j], nil }, nil
	}
	v := r.v
	return 1, 1, func(int, int) (value, error) { return v, nil }, nil
}

func cellName(row, col int) string {
	var b []byte
	for c := col; c > 0; c = (c - 1) / 26 {
		b = append([]byte{byte('A' + (c-1)%26)}, b...)
	}
	return string(b) + itoa(row)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
