package formula

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

type function struct {
	min, max int // argument counts; max -1 for any
	fn       func(e *evaluator, args []result) (result, error)
}

// funcs are the functions computed here, by Excel's name (the _xlfn.
// prefix of newer functions removed).
var funcs map[string]function

// lazyFuncs evaluate only the arguments they need, as Excel does: IF's
// branch not taken may hold an error or a function not computed here.
var lazyFuncs map[string]func(e *evaluator, args []node) (result, error)

// Functions returns the names of the functions computed here, sorted.
func Functions() []string {
	var out []string
	for k := range funcs {
		out = append(out, k)
	}
	for k := range lazyFuncs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func init() {
	funcs = map[string]function{
		"SUM":     {1, -1, aggregate(func(xs []float64) value { return num(sum(xs)) })},
		"PRODUCT": {1, -1, aggregate(func(xs []float64) value { return num(product(xs)) })},
		"SUMSQ": {1, -1, aggregate(func(xs []float64) value {
			s := 0.0
			for _, x := range xs {
				s += x * x
			}
			return num(s)
		})},
		"AVERAGE": {1, -1, aggregate(func(xs []float64) value {
			if len(xs) == 0 {
				return errDiv0
			}
			return num(sum(xs) / float64(len(xs)))
		})},
		"MIN": {1, -1, aggregate(func(xs []float64) value {
			if len(xs) == 0 {
				return num(0)
			}
			m := xs[0]
			for _, x := range xs {
				m = math.Min(m, x)
			}
			return num(m)
		})},
		"MAX": {1, -1, aggregate(func(xs []float64) value {
			if len(xs) == 0 {
				return num(0)
			}
			m := xs[0]
			for _, x := range xs {
				m = math.Max(m, x)
			}
			return num(m)
		})},
		"MEDIAN": {1, -1, aggregate(func(xs []float64) value {
			if len(xs) == 0 {
				return errNum
			}
			s := append([]float64(nil), xs...)
			sort.Float64s(s)
			if len(s)%2 == 1 {
				return num(s[len(s)/2])
			}
			return num((s[len(s)/2-1] + s[len(s)/2]) / 2)
		})},
		"COUNT":      {1, -1, countFn(func(v value, fromRef bool) bool { return isCounted(v, fromRef) })},
		"COUNTA":     {1, -1, countFn(func(v value, _ bool) bool { return v.k != vEmpty })},
		"COUNTBLANK": {1, 1, countBlank},
		"ABS":        {1, 1, math1(math.Abs)},
		"SQRT": {1, 1, math1e(func(x float64) value {
			if x < 0 {
				return errNum
			}
			return num(math.Sqrt(x))
		})},
		"INT":     {1, 1, math1(math.Floor)},
		"EXP":     {1, 1, math1(exp)},
		"LN":      {1, 1, math1e(logOf(math.Log))},
		"LOG10":   {1, 1, math1e(logOf(math.Log10))},
		"SIN":     {1, 1, math1(math.Sin)},
		"COS":     {1, 1, math1(math.Cos)},
		"TAN":     {1, 1, math1(math.Tan)},
		"ASIN":    {1, 1, math1e(domain(-1, 1, math.Asin))},
		"ACOS":    {1, 1, math1e(domain(-1, 1, math.Acos))},
		"ATAN":    {1, 1, math1(math.Atan)},
		"SINH":    {1, 1, math1(math.Sinh)},
		"COSH":    {1, 1, math1(math.Cosh)},
		"TANH":    {1, 1, math1(math.Tanh)},
		"DEGREES": {1, 1, math1(func(x float64) float64 { return x * 180 / math.Pi })},
		"RADIANS": {1, 1, math1(func(x float64) float64 { return x * math.Pi / 180 })},
		"SIGN": {1, 1, math1(func(x float64) float64 {
			switch {
			case x > 0:
				return 1
			case x < 0:
				return -1
			}
			return 0
		})},
		"PI": {0, 0, func(*evaluator, []result) (result, error) { return scalar(num(math.Pi)), nil }},
		"FACT": {1, 1, math1e(func(x float64) value {
			if x < 0 {
				return errNum
			}
			f := 1.0
			for i := 2.0; i <= math.Floor(x); i++ {
				f *= i
			}
			return num(f)
		})},
		"EVEN": {1, 1, math1(func(x float64) float64 { return roundAway(x, 2) })},
		"ODD": {1, 1, math1(func(x float64) float64 {
			r := roundAway(x, 1)
			if math.Mod(r, 2) == 0 {
				if r < 0 || x < 0 {
					return r - 1
				}
				return r + 1
			}
			return r
		})},
		"ROUND":     {2, 2, math2(func(x, d float64) value { return num(roundDigits(x, d, roundHalfAway)) })},
		"ROUNDUP":   {2, 2, math2(func(x, d float64) value { return num(roundDigits(x, d, roundUp)) })},
		"ROUNDDOWN": {2, 2, math2(func(x, d float64) value { return num(roundDigits(x, d, math.Trunc)) })},
		"TRUNC":     {1, 2, truncFn},
		"MOD": {2, 2, math2(func(x, y float64) value {
			if y == 0 {
				return errDiv0
			}
			return num(x - y*math.Floor(x/y))
		})},
		"POWER": {2, 2, math2(func(x, y float64) value {
			if x == 0 && y <= 0 {
				if y == 0 {
					return errNum
				}
				return errDiv0
			}
			if x < 0 && y != math.Trunc(y) {
				return errNum
			}
			return num(math.Pow(x, y))
		})},
		"ATAN2": {2, 2, math2(func(x, y float64) value {
			if x == 0 && y == 0 {
				return errDiv0
			}
			return num(math.Atan2(y, x))
		})},
		"LOG":        {1, 2, logFn},
		"SUMPRODUCT": {1, -1, sumProduct},

		"AND": {1, -1, logical(func(t, n int) bool { return t == n })},
		"OR":  {1, -1, logical(func(t, _ int) bool { return t > 0 })},
		"XOR": {1, -1, logical(func(t, _ int) bool { return t%2 == 1 })},
		"NOT": {1, 1, func(e *evaluator, a []result) (result, error) {
			v, err := e.single(a[0])
			if err != nil {
				return result{}, err
			}
			b, bad := toBool(v)
			if bad != nil {
				return scalar(*bad), nil
			}
			return scalar(boolean(!b)), nil
		}},
		"TRUE":  {0, 0, func(*evaluator, []result) (result, error) { return scalar(boolean(true)), nil }},
		"FALSE": {0, 0, func(*evaluator, []result) (result, error) { return scalar(boolean(false)), nil }},
		"NA":    {0, 0, func(*evaluator, []result) (result, error) { return scalar(errNA), nil }},

		"ISBLANK":   {1, 1, is(func(v value) bool { return v.k == vEmpty })},
		"ISNUMBER":  {1, 1, is(func(v value) bool { return v.k == vNum })},
		"ISTEXT":    {1, 1, is(func(v value) bool { return v.k == vStr })},
		"ISNONTEXT": {1, 1, is(func(v value) bool { return v.k != vStr })},
		"ISLOGICAL": {1, 1, is(func(v value) bool { return v.k == vBool })},
		"ISERROR":   {1, 1, is(func(v value) bool { return v.k == vErr })},
		"ISERR":     {1, 1, is(func(v value) bool { return v.k == vErr && v.s != "#N/A" })},
		"ISNA":      {1, 1, is(func(v value) bool { return v.k == vErr && v.s == "#N/A" })},
		"ERROR.TYPE": {1, 1, func(e *evaluator, a []result) (result, error) {
			v, err := e.single(a[0])
			if err != nil || v.k != vErr {
				return scalar(errNA), err
			}
			for i, n := range []string{"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A"} {
				if v.s == n {
					return scalar(num(float64(i + 1))), nil
				}
			}
			return result{}, unsupported("asks the type of the error %s", v.s)
		}},
		"TYPE": {1, 1, func(e *evaluator, a []result) (result, error) {
			if a[0].arr != nil || a[0].ref != nil && (a[0].ref.rows() > 1 || a[0].ref.cols() > 1) {
				return scalar(num(64)), nil
			}
			v, err := e.single(a[0])
			if err != nil {
				return result{}, err
			}
			return scalar(num(map[kind]float64{vEmpty: 1, vNum: 1, vStr: 2, vBool: 4, vErr: 16}[v.k])), nil
		}},

		"CONCATENATE": {1, -1, concat(false)},
		"CONCAT":      {1, -1, concat(true)},
		"LEN":         {1, 1, text1(func(s string) value { return num(float64(utf16Len(s))) })},
		"UPPER":       {1, 1, text1(func(s string) value { return str(strings.ToUpper(s)) })},
		"LOWER":       {1, 1, text1(func(s string) value { return str(strings.ToLower(s)) })},
		"TRIM": {1, 1, text1(func(s string) value {
			return str(strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' }), " "))
		})},
		"T": {1, 1, func(e *evaluator, a []result) (result, error) {
			v, err := e.single(a[0])
			if err != nil || v.k == vErr {
				return scalar(v), err
			}
			if v.k != vStr {
				return scalar(str("")), nil
			}
			return scalar(v), nil
		}},
		"N": {1, 1, func(e *evaluator, a []result) (result, error) {
			v, err := e.single(a[0])
			if err != nil || v.k == vErr {
				return scalar(v), err
			}
			switch v.k {
			case vNum:
				return scalar(v), nil
			case vBool:
				if v.b {
					return scalar(num(1)), nil
				}
			}
			return scalar(num(0)), nil
		}},
		"LEFT":       {1, 2, leftRight(true)},
		"RIGHT":      {1, 2, leftRight(false)},
		"MID":        {3, 3, mid},
		"REPT":       {2, 2, rept},
		"EXACT":      {2, 2, exact},
		"FIND":       {2, 3, find(false)},
		"SEARCH":     {2, 3, find(true)},
		"SUBSTITUTE": {3, 4, substitute},
		"CHAR":       {1, 1, charFn},
		"CODE":       {1, 1, codeFn},
		"VALUE":      {1, 1, valueFn},

		"ROW":     {0, 1, rowCol(true)},
		"COLUMN":  {0, 1, rowCol(false)},
		"ROWS":    {1, 1, dims(true)},
		"COLUMNS": {1, 1, dims(false)},
		"INDEX":   {2, 3, index},
		"MATCH":   {2, 3, match},
		"VLOOKUP": {3, 4, lookup(true)},
		"HLOOKUP": {3, 4, lookup(false)},

		"SUMIF":     {2, 3, sumIf(false)},
		"AVERAGEIF": {2, 3, sumIf(true)},
		"COUNTIF":   {2, 2, countIfs},
		"COUNTIFS":  {2, -1, countIfs},
		"SUMIFS":    {3, -1, sumIfs},
		"MAXIFS":    {3, -1, extremeIfs(true)},
		"MINIFS":    {3, -1, extremeIfs(false)},
		"PROPER":    {1, 1, text1(proper)},
		"TEXTJOIN":  {3, -1, textJoin},
		"EDATE":     {2, 2, edate(false)},
		"EOMONTH":   {2, 2, edate(true)},
		"DAYS":      {2, 2, days},

		"DATE":    {3, 3, dateFn},
		"YEAR":    {1, 1, datePart(0)},
		"MONTH":   {1, 1, datePart(1)},
		"DAY":     {1, 1, datePart(2)},
		"TIME":    {3, 3, timeFn},
		"HOUR":    {1, 1, timePart(3600, 24)},
		"MINUTE":  {1, 1, timePart(60, 60)},
		"SECOND":  {1, 1, timePart(1, 60)},
		"WEEKDAY": {1, 2, weekday},
	}
	lazyFuncs = map[string]func(e *evaluator, args []node) (result, error){
		"IF":      ifFn,
		"IFERROR": ifError(func(v value) bool { return v.k == vErr }),
		"IFNA":    ifError(func(v value) bool { return v.k == vErr && v.s == "#N/A" }),
		"CHOOSE":  choose,
		"IFS":     ifs,
	}
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

func product(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	p := 1.0
	for _, x := range xs {
		p *= x
	}
	return p
}

func aggregate(f func([]float64) value) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, args []result) (result, error) {
		xs, bad, err := e.numbers(args)
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		return scalar(f(xs)), nil
	}
}

func isCounted(v value, fromRef bool) bool {
	switch v.k {
	case vNum:
		return true
	case vBool:
		return !fromRef
	case vStr:
		if fromRef {
			return false
		}
		_, ok, _ := parseNumber(v.s)
		return ok
	}
	return false
}

func countFn(counted func(value, bool) bool) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, args []result) (result, error) {
		n := 0
		err := e.values(args, func(v value, fromRef bool) error {
			if counted(v, fromRef) {
				n++
			}
			return nil
		})
		return scalar(num(float64(n))), err
	}
}

func countBlank(e *evaluator, a []result) (result, error) {
	r := a[0].ref
	if r == nil {
		return result{}, unsupported("COUNTBLANK of a value that is not a range")
	}
	filled := 0
	err := e.b.each(r, func(_, _ int, v value) error {
		if !(v.k == vEmpty || v.k == vStr && v.s == "") {
			filled++
		}
		return nil
	})
	return scalar(num(float64(r.rows()*r.cols() - filled))), err
}

func numArg(e *evaluator, r result) (float64, *value, error) {
	v, err := e.single(r)
	if err != nil {
		return 0, nil, err
	}
	return toNum(v)
}

func math1(f func(float64) float64) func(*evaluator, []result) (result, error) {
	return math1e(func(x float64) value { return num(f(x)) })
}

func math1e(f func(float64) value) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, a []result) (result, error) {
		x, bad, err := numArg(e, a[0])
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		return scalar(f(x)), nil
	}
}

func math2(f func(x, y float64) value) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, a []result) (result, error) {
		x, bad, err := numArg(e, a[0])
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		y, bad, err := numArg(e, a[1])
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		return scalar(f(x, y)), nil
	}
}

func logOf(f func(float64) float64) func(float64) value {
	return func(x float64) value {
		if x <= 0 {
			return errNum
		}
		return num(f(x))
	}
}

func domain(lo, hi float64, f func(float64) float64) func(float64) value {
	return func(x float64) value {
		if x < lo || x > hi {
			return errNum
		}
		return num(f(x))
	}
}

func logFn(e *evaluator, a []result) (result, error) {
	x, bad, err := numArg(e, a[0])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	base := 10.0
	if len(a) > 1 {
		if base, bad, err = numArg(e, a[1]); err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
	}
	if x <= 0 || base <= 0 {
		return scalar(errNum), nil
	}
	if base == 1 {
		return scalar(errDiv0), nil
	}
	if base == 10 {
		return scalar(num(math.Log10(x))), nil
	}
	return scalar(num(math.Log(x) / math.Log(base))), nil
}

// roundDigits rounds x to d decimal digits (d negative: to tens, hundreds)
// with f, first cutting the binary noise below 15 significant digits so
// that 2.675 rounds as the 2.675 a person typed, as Excel does.
func roundDigits(x, d float64, f func(float64) float64) float64 {
	d = math.Trunc(d)
	if d > 15 {
		d = 15
	}
	if d >= 0 && math.Abs(x) >= 1e15 {
		return x // no decimals left to round at this size
	}
	p := math.Pow(10, d)
	y := x * p
	y, _ = parseFloat15(y)
	return f(y) / p
}

func parseFloat15(x float64) (float64, bool) {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x, false
	}
	s := formatG15(x)
	var f float64
	_, err := sscanFloat(s, &f)
	return f, err == nil
}

func roundHalfAway(x float64) float64 { return math.Round(x) }

func roundUp(x float64) float64 {
	if x < 0 {
		return -math.Ceil(-x)
	}
	return math.Ceil(x)
}

func roundAway(x, step float64) float64 {
	if x < 0 {
		return -math.Ceil(-x/step) * step
	}
	return math.Ceil(x/step) * step
}

func truncFn(e *evaluator, a []result) (result, error) {
	x, bad, err := numArg(e, a[0])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	d := 0.0
	if len(a) > 1 {
		if d, bad, err = numArg(e, a[1]); err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
	}
	return scalar(num(roundDigits(x, d, math.Trunc))), nil
}

func sumProduct(e *evaluator, args []result) (result, error) {
	var rows, cols int
	var ats []func(i, j int) (value, error)
	for k, a := range args {
		if a.ref == nil && a.arr == nil {
			return result{}, unsupported("SUMPRODUCT of an expression, which needs array arithmetic")
		}
		r, c, at, err := e.grid(a)
		if err != nil {
			return result{}, err
		}
		if a.ref != nil {
			r, c = a.ref.rows(), a.ref.cols()
		}
		if k == 0 {
			rows, cols = r, c
		} else if r != rows || c != cols {
			return scalar(errValue), nil
		}
		ats = append(ats, at)
	}
	if rows*cols > 1<<22 {
		return result{}, unsupported("SUMPRODUCT over more than %d cells", 1<<22)
	}
	total := 0.0
	for i := range rows {
		for j := range cols {
			p := 1.0
			for _, at := range ats {
				v, err := at(i, j)
				if err != nil {
					return result{}, err
				}
				switch v.k {
				case vErr:
					return scalar(v), nil
				case vNum:
					p *= v.n
				default:
					p = 0
				}
			}
			total += p
		}
	}
	return scalar(num(total)), nil
}

func logical(f func(trues, n int) bool) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, args []result) (result, error) {
		t, n := 0, 0
		err := e.values(args, func(v value, fromRef bool) error {
			switch v.k {
			case vErr:
				return errStop{v}
			case vEmpty:
				return nil
			case vStr:
				if fromRef {
					return nil
				}
			}
			b, bad := toBool(v)
			if bad != nil {
				return errStop{*bad}
			}
			n++
			if b {
				t++
			}
			return nil
		})
		if s, ok := err.(errStop); ok {
			return scalar(s.v), nil
		}
		if err != nil {
			return result{}, err
		}
		if n == 0 {
			return scalar(errValue), nil
		}
		return scalar(boolean(f(t, n))), nil
	}
}

func is(f func(value) bool) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, a []result) (result, error) {
		v, err := e.single(a[0])
		if err != nil {
			return result{}, err
		}
		return scalar(boolean(f(v))), nil
	}
}

// condition evaluates an IF-style condition: its truth, or the error
// that is the answer.
func (e *evaluator) condition(n node) (bool, *value, error) {
	c, err := e.scalarArg(n)
	if err != nil {
		return false, nil, err
	}
	b, bad := toBool(c)
	return b, bad, nil
}

func ifFn(e *evaluator, args []node) (result, error) {
	if len(args) < 2 || len(args) > 3 {
		return result{}, unsupported("calls IF with %d arguments", len(args))
	}
	b, bad, err := e.condition(args[0])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	if b {
		return e.eval(args[1])
	}
	if len(args) < 3 {
		return scalar(boolean(false)), nil
	}
	if _, ok := args[2].(missingArg); ok {
		return scalar(num(0)), nil
	}
	return e.eval(args[2])
}

func ifError(catch func(value) bool) func(e *evaluator, args []node) (result, error) {
	return func(e *evaluator, args []node) (result, error) {
		if len(args) != 2 {
			return result{}, unsupported("calls IFERROR or IFNA with %d arguments", len(args))
		}
		v, err := e.scalarArg(args[0])
		if err != nil {
			return result{}, err
		}
		if catch(v) {
			return e.eval(args[1])
		}
		return scalar(v), nil
	}
}

func choose(e *evaluator, args []node) (result, error) {
	if len(args) < 2 {
		return result{}, unsupported("calls CHOOSE with %d arguments", len(args))
	}
	i, bad, err := func() (float64, *value, error) {
		v, err := e.scalarArg(args[0])
		if err != nil {
			return 0, nil, err
		}
		return toNum(v)
	}()
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	k := int(i)
	if k < 1 || k >= len(args) {
		return scalar(errValue), nil
	}
	return e.eval(args[k])
}

func concat(ranges bool) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, args []result) (result, error) {
		var b strings.Builder
		for _, a := range args {
			if (a.ref != nil || a.arr != nil) && !ranges {
				if _, err := e.single(a); err != nil {
					return result{}, err
				}
			}
		}
		err := e.values(args, func(v value, _ bool) error {
			s, bad, err := toText(v)
			if err != nil {
				return err
			}
			if bad != nil {
				return errStop{*bad}
			}
			b.WriteString(s)
			return nil
		})
		if s, ok := err.(errStop); ok {
			return scalar(s.v), nil
		}
		if err != nil {
			return result{}, err
		}
		if utf16Len(b.String()) > 32767 {
			return scalar(errValue), nil
		}
		return scalar(str(b.String())), nil
	}
}

func textArg(e *evaluator, r result) (string, *value, error) {
	v, err := e.single(r)
	if err != nil {
		return "", nil, err
	}
	return toText(v)
}

func text1(f func(string) value) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, a []result) (result, error) {
		s, bad, err := textArg(e, a[0])
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		return scalar(f(s)), nil
	}
}

// utf16Len counts characters as Excel does, in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// runesOf is s as characters; text outside the Basic Multilingual Plane,
// where Excel counts two units per character, is not cut here.
func runesOf(s string) ([]rune, error) {
	r := []rune(s)
	for _, c := range r {
		if c >= 0x10000 {
			return nil, unsupported("cuts text holding characters beyond U+FFFF, which Excel counts twice")
		}
	}
	return r, nil
}

func leftRight(left bool) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, a []result) (result, error) {
		s, bad, err := textArg(e, a[0])
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		n := 1.0
		if len(a) > 1 {
			if n, bad, err = numArg(e, a[1]); err != nil || bad != nil {
				return scalar(deref(bad)), err
			}
		}
		if n < 0 {
			return scalar(errValue), nil
		}
		r, err := runesOf(s)
		if err != nil {
			return result{}, err
		}
		k := min(int(n), len(r))
		if left {
			return scalar(str(string(r[:k]))), nil
		}
		return scalar(str(string(r[len(r)-k:]))), nil
	}
}

func mid(e *evaluator, a []result) (result, error) {
	s, bad, err := textArg(e, a[0])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	start, bad, err := numArg(e, a[1])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	n, bad, err := numArg(e, a[2])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	if start < 1 || n < 0 {
		return scalar(errValue), nil
	}
	r, err := runesOf(s)
	if err != nil {
		return result{}, err
	}
	i := int(start) - 1
	if i >= len(r) {
		return scalar(str("")), nil
	}
	return scalar(str(string(r[i:min(len(r), i+int(n))]))), nil
}

func rept(e *evaluator, a []result) (result, error) {
	s, bad, err := textArg(e, a[0])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	n, bad, err := numArg(e, a[1])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	if n < 0 || float64(utf16Len(s))*math.Floor(n) > 32767 {
		return scalar(errValue), nil
	}
	return scalar(str(strings.Repeat(s, int(n)))), nil
}

func exact(e *evaluator, a []result) (result, error) {
	x, bad, err := textArg(e, a[0])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	y, bad, err := textArg(e, a[1])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	return scalar(boolean(x == y)), nil
}

func find(fold bool) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, a []result) (result, error) {
		needle, bad, err := textArg(e, a[0])
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		hay, bad, err := textArg(e, a[1])
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		start := 1.0
		if len(a) > 2 {
			if start, bad, err = numArg(e, a[2]); err != nil || bad != nil {
				return scalar(deref(bad)), err
			}
		}
		if fold && strings.ContainsAny(needle, "*?~") {
			return result{}, unsupported("SEARCH with wildcards is not supported")
		}
		h, err := runesOf(hay)
		if err != nil {
			return result{}, err
		}
		if _, err := runesOf(needle); err != nil {
			return result{}, err
		}
		if fold {
			hay, needle = strings.ToLower(hay), strings.ToLower(needle)
			h = []rune(hay)
		}
		i := int(start) - 1
		if start < 1 || i > len(h) {
			return scalar(errValue), nil
		}
		k := strings.Index(string(h[i:]), needle)
		if k < 0 {
			return scalar(errValue), nil
		}
		return scalar(num(float64(i + utf8.RuneCountInString(string(h[i:])[:k]) + 1))), nil
	}
}

func substitute(e *evaluator, a []result) (result, error) {
	var s [3]string
	for i := range 3 {
		t, bad, err := textArg(e, a[i])
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		s[i] = t
	}
	if s[1] == "" {
		return scalar(str(s[0])), nil
	}
	if len(a) < 4 {
		return scalar(str(strings.ReplaceAll(s[0], s[1], s[2]))), nil
	}
	n, bad, err := numArg(e, a[3])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	if n < 1 {
		return scalar(errValue), nil
	}
	k := int(n)
	from := 0
	for {
		i := strings.Index(s[0][from:], s[1])
		if i < 0 {
			return scalar(str(s[0])), nil
		}
		if k--; k == 0 {
			at := from + i
			return scalar(str(s[0][:at] + s[2] + s[0][at+len(s[1]):])), nil
		}
		from += i + len(s[1])
	}
}

func charFn(e *evaluator, a []result) (result, error) {
	n, bad, err := numArg(e, a[0])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	k := int(n)
	if k < 1 || k > 255 {
		return scalar(errValue), nil
	}
	if k >= 128 {
		return result{}, unsupported("CHAR(%d) depends on the system's code page", k)
	}
	return scalar(str(string(rune(k)))), nil
}

func codeFn(e *evaluator, a []result) (result, error) {
	s, bad, err := textArg(e, a[0])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	if s == "" {
		return scalar(errValue), nil
	}
	if s[0] >= 128 {
		return result{}, unsupported("CODE of a character beyond ASCII depends on the system's code page")
	}
	return scalar(num(float64(s[0]))), nil
}

func valueFn(e *evaluator, a []result) (result, error) {
	v, err := e.single(a[0])
	if err != nil {
		return result{}, err
	}
	switch v.k {
	case vErr, vNum:
		return scalar(v), nil
	case vEmpty:
		return scalar(num(0)), nil
	case vBool:
		return scalar(errValue), nil
	}
	f, bad, err := toNum(v)
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	return scalar(num(f)), nil
}

func rowCol(row bool) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, a []result) (result, error) {
		if len(a) == 0 {
			if row {
				return scalar(num(float64(e.row))), nil
			}
			return scalar(num(float64(e.col))), nil
		}
		r := a[0].ref
		if r == nil {
			return scalar(errValue), nil
		}
		if row && r.r1 != r.r2 || !row && r.c1 != r.c2 {
			return result{}, unsupported("ROW or COLUMN of a range returns an array")
		}
		if row {
			return scalar(num(float64(r.r1))), nil
		}
		return scalar(num(float64(r.c1))), nil
	}
}

func dims(rows bool) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, a []result) (result, error) {
		r, c := 1, 1
		switch {
		case a[0].ref != nil:
			r, c = a[0].ref.rows(), a[0].ref.cols()
		case a[0].arr != nil:
			r, c = a[0].arr.rows, a[0].arr.cols
		}
		if rows {
			return scalar(num(float64(r))), nil
		}
		return scalar(num(float64(c))), nil
	}
}

func index(e *evaluator, a []result) (result, error) {
	i, bad, err := numArg(e, a[1])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	j := 0.0
	if len(a) > 2 {
		if j, bad, err = numArg(e, a[2]); err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
	}
	rows, cols := 1, 1
	switch {
	case a[0].ref != nil:
		rows, cols = a[0].ref.rows(), a[0].ref.cols()
	case a[0].arr != nil:
		rows, cols = a[0].arr.rows, a[0].arr.cols
	}
	ri, ci := int(i), int(j)
	if len(a) == 2 && rows == 1 {
		ri, ci = 1, int(i)
	}
	if ri < 0 || ci < 0 {
		return scalar(errValue), nil
	}
	if ri == 0 && rows == 1 {
		ri = 1
	}
	if ci == 0 && cols == 1 {
		ci = 1
	}
	if ri == 0 || ci == 0 {
		return result{}, unsupported("INDEX of a whole row or column returns a range")
	}
	if ri > rows || ci > cols {
		return scalar(errRef), nil
	}
	if r := a[0].ref; r != nil {
		return result{ref: &rangeRef{sh: r.sh, r1: r.r1 + ri - 1, c1: r.c1 + ci - 1, r2: r.r1 + ri - 1, c2: r.c1 + ci - 1}}, nil
	}
	if a[0].arr != nil {
		return scalar(a[0].arr.v[(ri-1)*cols+ci-1]), nil
	}
	return scalar(a[0].v), nil
}

// vector returns a one-row or one-column range's or array's cells.
func (e *evaluator) vector(r result) ([]value, bool, error) {
	rows, cols, at, err := e.grid(r)
	if err != nil {
		return nil, false, err
	}
	if r.ref != nil {
		if r.ref.rows() > 1 && r.ref.cols() > 1 {
			return nil, false, nil
		}
	} else if rows > 1 && cols > 1 {
		return nil, false, nil
	}
	out := make([]value, 0, rows*cols)
	for i := range rows {
		for j := range cols {
			v, err := at(i, j)
			if err != nil {
				return nil, false, err
			}
			out = append(out, v)
		}
	}
	return out, true, nil
}

func hasWildcard(v value) bool { return v.k == vStr && strings.ContainsAny(v.s, "*?~") }

// position finds key in vals as MATCH does: mode 0 exact (text without
// regard to case), 1 the largest value ≤ key in ascending data, -1 the
// smallest ≥ key in descending data. 0 when not found.
func position(vals []value, key value, mode int) (int, error) {
	if mode == 0 {
		if hasWildcard(key) {
			return 0, unsupported("looks up text with wildcards")
		}
		for i, v := range vals {
			if v.k != vEmpty && sameType(v, key) && compare(v, key) == 0 {
				return i + 1, nil
			}
		}
		return 0, nil
	}
	// A binary search over sorted data, as Excel does; on data that is not
	// sorted its answer is Excel's own implementation detail.
	for i := 1; i < len(vals); i++ {
		a, b := vals[i-1], vals[i]
		if a.k == vEmpty || b.k == vEmpty || !sameType(a, b) {
			continue
		}
		if c := compare(a, b); mode > 0 && c > 0 || mode < 0 && c < 0 {
			return 0, unsupported("an approximate lookup in data that is not sorted")
		}
	}
	best := 0
	for i, v := range vals {
		if v.k == vEmpty || !sameType(v, key) {
			continue
		}
		c := compare(v, key)
		if mode > 0 && c <= 0 || mode < 0 && c >= 0 {
			best = i + 1
		} else {
			break
		}
	}
	return best, nil
}

func sameType(a, b value) bool {
	kind := func(v value) kind {
		if v.k == vEmpty {
			return vNum
		}
		return v.k
	}
	return kind(a) == kind(b)
}

func match(e *evaluator, a []result) (result, error) {
	key, err := e.single(a[0])
	if err != nil || key.k == vErr {
		return scalar(key), err
	}
	mode := 1.0
	if len(a) > 2 {
		var bad *value
		if mode, bad, err = numArg(e, a[2]); err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
	}
	vals, ok, err := e.vector(a[1])
	if err != nil {
		return result{}, err
	}
	if !ok {
		return scalar(errNA), nil
	}
	m := 0
	switch {
	case mode > 0:
		m = 1
	case mode < 0:
		m = -1
	}
	i, err := position(vals, key, m)
	if err != nil || i == 0 {
		return scalar(errNA), err
	}
	return scalar(num(float64(i))), nil
}

func lookup(vertical bool) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, a []result) (result, error) {
		key, err := e.single(a[0])
		if err != nil || key.k == vErr {
			return scalar(key), err
		}
		n, bad, err := numArg(e, a[2])
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		approx := true
		if len(a) > 3 {
			v, err := e.single(a[3])
			if err != nil {
				return result{}, err
			}
			if _, ok := v.k, true; ok && v.k != vEmpty {
				b, bad := toBool(v)
				if bad != nil {
					return scalar(*bad), nil
				}
				approx = b
			} else {
				approx = false
			}
		}
		if a[1].ref == nil && a[1].arr == nil && a[1].v.k == vStr {
			return scalar(errValue), nil
		}
		rows, cols, at, err := e.grid(a[1])
		if err != nil {
			return result{}, err
		}
		if ref := a[1].ref; ref != nil {
			rows, cols = ref.rows(), ref.cols()
		}
		k := int(n)
		width := cols
		if !vertical {
			width = rows
		}
		if k < 1 {
			return scalar(errValue), nil
		}
		if k > width {
			return scalar(errRef), nil
		}
		length := rows
		if !vertical {
			length = cols
		}
		if length > 1<<20 {
			return result{}, unsupported("a lookup over more than %d cells", 1<<20)
		}
		keys := make([]value, length)
		for i := range length {
			if vertical {
				keys[i], err = at(i, 0)
			} else {
				keys[i], err = at(0, i)
			}
			if err != nil {
				return result{}, err
			}
		}
		mode := 0
		if approx {
			mode = 1
		}
		i, err := position(keys, key, mode)
		if err != nil || i == 0 {
			return scalar(errNA), err
		}
		var v value
		if vertical {
			v, err = at(i-1, k-1)
		} else {
			v, err = at(k-1, i-1)
		}
		return scalar(v), err
	}
}

// criterion is a condition of COUNTIF, SUMIF and their kin: "> 5", "<>x",
// "=", or a value matched for equality.
type criterion struct {
	op string
	v  value
	// explicit is true when the text named its operator ("=x", not "x").
	explicit bool
	// fromText is true for a condition written as text ("23", "<>5"): its
	// number then also equals text that reads as that number.
	fromText bool
}

func parseCriterion(v value) (criterion, error) {
	switch v.k {
	case vErr:
		return criterion{}, unsupported("a condition that is the error %s", v.s)
	case vEmpty:
		// An empty cell as the condition is 0.
		return criterion{op: "=", v: num(0)}, nil
	case vNum, vBool:
		return criterion{op: "=", v: v}, nil
	}
	s := v.s
	op := "="
	for _, o := range []string{"<=", ">=", "<>", "=", "<", ">"} {
		if strings.HasPrefix(s, o) {
			op, s = o, s[len(o):]
			break
		}
	}
	c := criterion{op: op, v: str(s), explicit: len(s) < len(v.s), fromText: true}
	if f, ok, maybeDate := parseNumber(s); ok {
		c.v = num(f)
	} else if maybeDate {
		return c, unsupported("a condition %q that Excel may read as a date", v.s)
	} else if strings.EqualFold(s, "TRUE") || strings.EqualFold(s, "FALSE") {
		c.v = boolean(strings.EqualFold(s, "TRUE"))
	} else if strings.ContainsAny(s, "*?~") {
		return c, unsupported("a condition with wildcards (%q)", v.s)
	} else if strings.HasPrefix(s, "#") {
		return c, unsupported("a condition on error values (%q)", v.s)
	}
	return c, nil
}

func (c criterion) match(v value) bool {
	if c.v.k == vStr && c.v.s == "" {
		switch c.op {
		case "=":
			// "" matches empty cells and empty text; "=" only empty cells.
			return v.k == vEmpty || !c.explicit && v.k == vStr && v.s == ""
		case "<>":
			// "<>" counts every cell holding anything, a formula's ""
			// included.
			return v.k != vEmpty
		}
	}
	if v.k == vEmpty || v.k == vErr {
		return c.op == "<>" && v.k == vEmpty
	}
	if c.fromText && c.v.k == vNum && v.k == vStr && (c.op == "=" || c.op == "<>") {
		if f, ok, _ := parseNumber(v.s); ok {
			v = num(f)
		}
	}
	if !sameType(v, c.v) {
		return c.op == "<>"
	}
	r := compare(v, c.v)
	switch c.op {
	case "=":
		return r == 0
	case "<>":
		return r != 0
	case "<":
		return r < 0
	case ">":
		return r > 0
	case "<=":
		return r <= 0
	}
	return r >= 0
}

// conditions returns, for the cells of the first range, whether every
// (range, criterion) pair holds; offsets are (row, col) within the range.
func (e *evaluator) conditions(pairs []result) (rows, cols int, ok func(i, j int) (bool, error), err error) {
	type cond struct {
		c  criterion
		at func(i, j int) (value, error)
	}
	var conds []cond
	for k := 0; k+1 < len(pairs); k += 2 {
		if pairs[k].ref == nil {
			return 0, 0, nil, unsupported("a condition over something other than a range")
		}
		r := pairs[k].ref
		if k == 0 {
			rows, cols = r.rows(), r.cols()
		} else if r.rows() != rows || r.cols() != cols {
			return 0, 0, nil, unsupported("condition ranges of different sizes")
		}
		v, err := e.single(pairs[k+1])
		if err != nil {
			return 0, 0, nil, err
		}
		c, err := parseCriterion(v)
		if err != nil {
			return 0, 0, nil, err
		}
		rr := r
		conds = append(conds, cond{c: c, at: func(i, j int) (value, error) {
			if rr.sh == nil {
				return value{}, nil
			}
			return e.b.cell(rr.sh, rr.r1+i, rr.c1+j)
		}})
	}
	return rows, cols, func(i, j int) (bool, error) {
		for _, c := range conds {
			v, err := c.at(i, j)
			if err != nil || !c.c.match(v) {
				return false, err
			}
		}
		return true, nil
	}, nil
}

// walkMatches calls fn with the offsets of the cells where every
// condition holds, within the part of the ranges the sheet stores cells
// in, and returns how many cells of the ranges lie beyond it (all empty).
func (e *evaluator) walkMatches(pairs []result, fn func(i, j int) error) (int, error) {
	rows, cols, ok, err := e.conditions(pairs)
	if err != nil {
		return 0, err
	}
	full := rows * cols
	first := pairs[0].ref
	if first.sh != nil && len(first.sh.cells) > 0 {
		last := first.sh.cells[len(first.sh.cells)-1].row
		rows = min(rows, max(last-first.r1+1, 0))
		maxCol := 0
		for _, c := range first.sh.cells {
			maxCol = max(maxCol, c.col)
		}
		cols = min(cols, max(maxCol-first.c1+1, 0))
	}
	if rows*cols > 1<<22 {
		return 0, unsupported("a condition over more than %d cells", 1<<22)
	}
	for i := range rows {
		for j := range cols {
			hit, err := ok(i, j)
			if err != nil {
				return 0, err
			}
			if hit {
				if err := fn(i, j); err != nil {
					return 0, err
				}
			}
		}
	}
	return full - rows*cols, nil
}

func countIfs(e *evaluator, a []result) (result, error) {
	if len(a)%2 != 0 {
		return scalar(errValue), nil
	}
	n := 0
	emptyMatches := true
	for k := 0; k < len(a); k += 2 {
		v, err := e.single(a[k+1])
		if err != nil {
			return result{}, err
		}
		c, err := parseCriterion(v)
		if err != nil {
			return result{}, err
		}
		emptyMatches = emptyMatches && c.match(value{})
	}
	beyond, err := e.walkMatches(a, func(int, int) error { n++; return nil })
	if emptyMatches {
		n += beyond
	}
	return scalar(num(float64(n))), err
}

func sumAt(e *evaluator, r *rangeRef, i, j int) (value, error) {
	if r.sh == nil {
		return value{}, nil
	}
	return e.b.cell(r.sh, r.r1+i, r.c1+j)
}

// matchedNumbers calls fn with each number of target (a range the size
// of the conditions' ranges) where every condition of pairs holds; an
// error there is the answer (bad).
func matchedNumbers(e *evaluator, target *rangeRef, pairs []result, fn func(float64)) (bad *value, err error) {
	_, err = e.walkMatches(pairs, func(i, j int) error {
		v, err := sumAt(e, target, i, j)
		if err != nil {
			return err
		}
		switch v.k {
		case vNum:
			fn(v.n)
		case vErr:
			bad = &v
			return errStop{v}
		}
		return nil
	})
	if bad != nil {
		return bad, nil
	}
	return nil, err
}

func sumIf(average bool) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, a []result) (result, error) {
		if a[0].ref == nil {
			return result{}, unsupported("a condition over something other than a range")
		}
		target := a[0].ref
		if len(a) > 2 {
			target = a[2].ref
			if target == nil || target.rows() != a[0].ref.rows() || target.cols() != a[0].ref.cols() {
				return result{}, unsupported("SUMIF with a sum range of another size or no range")
			}
		}
		total, n := 0.0, 0
		bad, err := matchedNumbers(e, target, a[:2], func(x float64) { total += x; n++ })
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		if average {
			if n == 0 {
				return scalar(errDiv0), nil
			}
			return scalar(num(total / float64(n))), nil
		}
		return scalar(num(total)), nil
	}
}

// ifsTarget checks the ranges of SUMIFS, MAXIFS and MINIFS: a target
// range, then (range, condition) pairs of its size.
func ifsTarget(a []result) (*rangeRef, bool) {
	if len(a)%2 != 1 || a[0].ref == nil || a[1].ref == nil {
		return nil, false
	}
	t := a[0].ref
	return t, a[1].ref.rows() == t.rows() && a[1].ref.cols() == t.cols()
}

func sumIfs(e *evaluator, a []result) (result, error) {
	target, ok := ifsTarget(a)
	if !ok {
		return scalar(errValue), nil
	}
	total := 0.0
	bad, err := matchedNumbers(e, target, a[1:], func(x float64) { total += x })
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	return scalar(num(total)), nil
}

// exp is math.Exp, whose assembly on some platforms overflows a little
// below the largest double: there it takes the square of the half.
func exp(x float64) float64 {
	r := math.Exp(x)
	if math.IsInf(r, 1) && x < 710 {
		h := math.Exp(x / 2)
		r = h * h
	}
	return r
}

func extremeIfs(isMax bool) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, a []result) (result, error) {
		target, ok := ifsTarget(a)
		if !ok {
			return scalar(errValue), nil
		}
		best, found := 0.0, false
		bad, err := matchedNumbers(e, target, a[1:], func(x float64) {
			if !found || isMax && x > best || !isMax && x < best {
				best, found = x, true
			}
		})
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		return scalar(num(best)), nil
	}
}

func ifs(e *evaluator, args []node) (result, error) {
	if len(args) < 2 || len(args)%2 != 0 {
		return result{}, unsupported("calls IFS with %d arguments", len(args))
	}
	for k := 0; k < len(args); k += 2 {
		b, bad, err := e.condition(args[k])
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		if b {
			return e.eval(args[k+1])
		}
	}
	return scalar(errNA), nil
}

// proper capitalises each letter that follows a character that is not a
// letter, and lowers the others, as Excel's PROPER does.
func proper(s string) value {
	var b strings.Builder
	prevLetter := false
	for _, r := range s {
		isLetter := unicode.IsLetter(r)
		if isLetter && !prevLetter {
			b.WriteRune(unicode.ToUpper(r))
		} else if isLetter {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(r)
		}
		prevLetter = isLetter
	}
	return str(b.String())
}

func textJoin(e *evaluator, a []result) (result, error) {
	sep, bad, err := textArg(e, a[0])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	ign, err := e.single(a[1])
	if err != nil {
		return result{}, err
	}
	skip, bad := toBool(ign)
	if bad != nil {
		return scalar(*bad), nil
	}
	var parts []string
	add := func(v value, _ bool) error {
		t, bad, err := toText(v)
		if err != nil {
			return err
		}
		if bad != nil {
			return errStop{*bad}
		}
		if t == "" && skip {
			return nil
		}
		parts = append(parts, t)
		return nil
	}
	// Every cell of a range counts, empty ones too (kept unless ignored).
	for _, r := range a[2:] {
		if r.ref == nil {
			if err = e.values([]result{r}, add); err != nil {
				break
			}
			continue
		}
		if r.ref.rows()*r.ref.cols() > 1<<20 {
			return result{}, unsupported("TEXTJOIN over more than %d cells", 1<<20)
		}
		for i := 0; i < r.ref.rows() && err == nil; i++ {
			for j := 0; j < r.ref.cols() && err == nil; j++ {
				var v value
				if v, err = sumAt(e, r.ref, i, j); err == nil {
					err = add(v, true)
				}
			}
		}
		if err != nil {
			break
		}
	}
	if s, ok := err.(errStop); ok {
		return scalar(s.v), nil
	}
	if err != nil {
		return result{}, err
	}
	out := strings.Join(parts, sep)
	if utf16Len(out) > 32767 {
		return scalar(errValue), nil
	}
	return scalar(str(out)), nil
}

// edate moves a date by whole months, keeping its day (or the month's
// last day when it has fewer); endOfMonth gives the last day always.
func edate(endOfMonth bool) func(*evaluator, []result) (result, error) {
	return func(e *evaluator, a []result) (result, error) {
		start, bad, err := numArg(e, a[0])
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		months, bad, err := numArg(e, a[1])
		if err != nil || bad != nil {
			return scalar(deref(bad)), err
		}
		y, m, d, ok := e.dateOf(start)
		if !ok {
			return scalar(errNum), nil
		}
		if !e.b.w.Date1904 && math.Floor(start) <= 60 {
			return result{}, unsupported("a date in January or February 1900, where Excel's calendar has a day that never was")
		}
		total := y*12 + (m - 1) + int64(math.Trunc(months))
		y, m = floorDiv(total, 12), mod(total, 12)+1
		last := daysFromCivil(y+m/12, m%12+1, 1) - daysFromCivil(y, m, 1)
		if endOfMonth || d > last {
			d = last
		}
		if y < 1900 && !e.b.w.Date1904 || y > 9999 {
			return scalar(errNum), nil
		}
		s, ok := e.serialOf(y, m, d)
		if !ok {
			return scalar(errNum), nil
		}
		return scalar(num(s)), nil
	}
}

func days(e *evaluator, a []result) (result, error) {
	end, bad, err := numArg(e, a[0])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	start, bad, err := numArg(e, a[1])
	if err != nil || bad != nil {
		return scalar(deref(bad)), err
	}
	if end != math.Trunc(end) || start != math.Trunc(start) {
		return result{}, unsupported("DAYS of a date with a time of day, which Excel and LibreOffice count differently")
	}
	return scalar(num(end - start)), nil
}
